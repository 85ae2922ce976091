package io.shardflow.it.badinput;

import static io.shardflow.it.badinput.BadInputFixtures.assignedIds;
import static io.shardflow.it.badinput.BadInputFixtures.good;
import static io.shardflow.it.badinput.BadInputFixtures.header;
import static io.shardflow.it.badinput.BadInputFixtures.mutate;
import static io.shardflow.it.badinput.BadInputFixtures.sample;
import static io.shardflow.it.badinput.BadInputFixtures.serialize;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.it.support.KafkaTopics;
import io.shardflow.it.support.TestStack;
import io.shardflow.schemas.Sample;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of bad input, produced to the real broker and decoded against the real registry, must
 * land in the dead-letter topic with its reason and original bytes, while good records around it
 * keep flowing: 100% of bad records in the DLQ, 0 good ones.
 */
class BadInputTest {

    private static final String DATASET = BadInputFixtures.DATASET;
    private static final String VERSION = BadInputFixtures.VERSION;
    private static final long MAX_RECORD_BYTES = 8_192;

    @TempDir
    Path work;

    @Test
    void shouldDeadLetterEveryBadRecordWithItsReasonAndKeepAcceptingGoodOnes() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            S3ObjectStore store = stack.store();
            stack.createDataset(DATASET, VERSION, "no NaN allowed", "image:float32:2x4", "label:int64");
            Map<String, Object> settings = new HashMap<>(PipelineSettings.ingest(endpoints, 1000, 1 << 20, Duration.ofSeconds(1),
                    work.resolve("ingest")));
            settings.put(IngestConfig.SAMPLE_MAX_BYTES, Long.toString(MAX_RECORD_BYTES));
            IngestApp ingest = IngestApp.start(settings);
            try {
                Map<String, byte[]> bad = badRecords(endpoints.registryUrl());
                List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
                List<String> goodIds = new ArrayList<>();
                int n = 0;
                for (Map.Entry<String, byte[]> entry : bad.entrySet()) {
                    String goodId = "good-" + n++;
                    goodIds.add(goodId);
                    records.add(new ProducerRecord<>("samples", goodId.getBytes(StandardCharsets.UTF_8),
                            serialize(endpoints.registryUrl(), good(goodId))));
                    records.add(new ProducerRecord<>("samples", entry.getKey().getBytes(StandardCharsets.UTF_8), entry.getValue()));
                }
                new KafkaTopics(endpoints.bootstrapServers()).produce("samples", records);

                KafkaTopics topics = new KafkaTopics(endpoints.bootstrapServers());
                List<ConsumerRecord<byte[], byte[]>> dead = topics.readUntil("samples-dlq", r -> r.size() >= bad.size(),
                        Duration.ofSeconds(60));
                List<ConsumerRecord<byte[], byte[]>> samples = topics.readUntil("samples", r -> r.size() >= records.size(),
                        Duration.ofSeconds(60));
                List<ConsumerRecord<byte[], byte[]>> assigned = topics.readUntil("shard-assignments",
                        r -> assignedIds(r, samples).containsAll(goodIds), Duration.ofSeconds(60));

                assertThat(dead).as("one dead letter per bad record, none for good ones").hasSize(bad.size());
                for (ConsumerRecord<byte[], byte[]> letter : dead) {
                    String expectedReason = new String(letter.key(), StandardCharsets.UTF_8).replaceAll("#.*", "");
                    assertThat(header(letter, "shardflow.dlq.reason")).as("reason of %s (detail: %s)", expectedReason, header(letter, "shardflow.dlq.detail")).isEqualTo(expectedReason);
                    assertThat(header(letter, "shardflow.dlq.detail")).isNotBlank();
                    assertThat(header(letter, "shardflow.dlq.source")).startsWith("samples/");
                    assertThat(letter.value()).as("original bytes of %s", expectedReason)
                            .isEqualTo(bad.get(new String(letter.key(), StandardCharsets.UTF_8)));
                }
                assertThat(assignedIds(assigned, samples)).as("every good record assigned exactly once, and only those")
                        .containsExactlyInAnyOrderElementsOf(goodIds.stream().collect(Collectors.toList()))
                        .doesNotHaveDuplicates();
                assertThat(ingest.streams().state().isRunningOrRebalancing()).isTrue();
            } finally {
                ingest.close();
            }
        }
    }

    /** Key = expected reason code (with a #suffix where one reason has several cases), value = the record bytes. */
    private static Map<String, byte[]> badRecords(String registryUrl) {
        Map<String, byte[]> bad = new LinkedHashMap<>();
        bad.put("NOT_AVRO", "random bytes \u0000\u0001 from a confused device".getBytes(StandardCharsets.UTF_8));
        bad.put("NULL_VALUE", null);
        bad.put("UNKNOWN_SCHEMA", ByteBuffer.allocate(16).put((byte) 0).putInt(987_654).put(new byte[] {2, 4, 6}).array());
        bad.put("INCOMPATIBLE_SCHEMA", serialize(registryUrl, otherSchemaRecord()));
        bad.put("MISSING_FIELD", serialize(registryUrl, sampleMissingFields()));
        bad.put("INVALID_FIELD", serialize(registryUrl, mutate(good("x"), s -> s.setSampleId(""))));
        bad.put("UNKNOWN_DATASET", serialize(registryUrl, mutate(good("ud"), s -> s.setDataset("no-such-dataset"))));
        bad.put("UNKNOWN_VERSION", serialize(registryUrl, mutate(good("uv"), s -> s.setVersion("v9"))));
        bad.put("DTYPE_MISMATCH", serialize(registryUrl, mutate(good("dt"), s -> s.getTensors().get(1).setDtype(io.shardflow.schemas.DType.INT32))));
        bad.put("SHAPE_MISMATCH", serialize(registryUrl, mutate(good("sh"), s -> s.getTensors().get(0).setShape(List.of(4, 2)))));
        bad.put("BYTE_LENGTH_MISMATCH", serialize(registryUrl, mutate(good("bl"),
                s -> s.getTensors().get(0).setData(ByteBuffer.wrap(new byte[31])))));
        bad.put("MISSING_TENSOR", serialize(registryUrl, mutate(good("mt"), s -> s.setTensors(List.of(s.getTensors().get(0))))));
        bad.put("OVERSIZE_SAMPLE", serialize(registryUrl, mutate(good("big"),
                s -> s.getTensors().get(0).setData(ByteBuffer.wrap(new byte[(int) MAX_RECORD_BYTES * 2])))));
        bad.put("NON_FINITE_VALUE#nan", serialize(registryUrl, sample("nan", new float[] {0, 1, Float.NaN, 3, 4, 5, 6, 7})));
        bad.put("NON_FINITE_VALUE#inf", serialize(registryUrl, sample("inf", new float[] {0, 1, 2, 3, Float.NEGATIVE_INFINITY, 5, 6, 7})));
        bad.put("DUPLICATE_SAMPLE_ID", serialize(registryUrl, good("good-0")));
        return bad;
    }

    private static GenericRecord otherSchemaRecord() {
        Schema schema = SchemaBuilder.record("Telemetry").namespace("com.example.edge").fields()
                .requiredString("deviceId").requiredDouble("batteryLevel").endRecord();
        GenericRecord record = new GenericData.Record(schema);
        record.put("deviceId", "dev");
        record.put("batteryLevel", 0.5);
        return record;
    }

    /** Same record name as Sample but without most required fields: an old or broken producer. */
    private static GenericRecord sampleMissingFields() {
        Schema schema = SchemaBuilder.record("Sample").namespace("io.shardflow.schemas").fields()
                .requiredString("dataset").requiredString("version").requiredString("sampleId").endRecord();
        GenericRecord record = new GenericData.Record(schema);
        record.put("dataset", DATASET);
        record.put("version", VERSION);
        record.put("sampleId", "partial");
        return record;
    }

}
