package io.shardflow.it.evolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.SampleBuilder;
import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.it.support.KafkaTopics;
import io.shardflow.it.support.TestStack;
import io.shardflow.schemas.Sample;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema evolution rules (docs/producing/schema-evolution.md), on the real registry: a compatible new Avro version of
 * Sample keeps flowing into the same dataset version and the same shards; a tensor dtype change is
 * dead-lettered until a dataset version with that dtype exists, then flows into it.
 */
class SchemaEvolutionTest {

    private static final int PER_SCHEMA = 30;

    @TempDir
    Path work;

    @Test
    void shouldKeepCompatibleSchemaVersionsInTheSameShardsAndRouteDtypeChangesToANewVersion() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            S3ObjectStore store = stack.store();
            DatasetCatalog catalog = new DatasetCatalog(store);
            catalog.create(spec("v1", "image:float32:2x4"));
            Map<String, Object> ingestSettings = new HashMap<>(PipelineSettings.ingest(endpoints, 1000, 1 << 20,
                    Duration.ofSeconds(20), work.resolve("ingest")));
            ingestSettings.put(IngestConfig.SPEC_MISS_CACHE_MS, "200");
            IngestApp ingest = IngestApp.start(ingestSettings);
            ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "evo")));
            KafkaTopics topics = new KafkaTopics(endpoints.bootstrapServers());
            try {
                // 1. Interleave samples written with schema v1 (the current Sample) and a v2 that adds an optional field.
                List<ProducerRecord<byte[], byte[]>> mixed = new ArrayList<>();
                for (int i = 0; i < PER_SCHEMA; i++) {
                    mixed.add(record("v1-" + i, serialize(endpoints, sample("v1-" + i, "v1"))));
                    mixed.add(record("v2-" + i, serialize(endpoints, withNewOptionalField(sample("v2-" + i, "v1")))));
                }
                topics.produceTogether("samples", mixed); // well within one seal age, however slow a round trip is
                CommitLog v1 = new CommitLog(store, "evo", "v1", Clock.systemUTC());
                await().atMost(Duration.ofSeconds(120)).until(() -> v1.latest().sampleCount() >= 2 * PER_SCHEMA);
                Snapshot snapshot = v1.latest();
                assertThat(snapshot.sampleCount()).isEqualTo(2 * PER_SCHEMA);
                // One open shard per lane (3 input partitions), sealed by age: a schema change cuts no shard.
                assertThat(snapshot.shards()).hasSizeLessThanOrEqualTo(3);
                assertThat(snapshot.shards()).anySatisfy(shard -> assertThat(schemaVersionsIn(store, shard)).containsExactlyInAnyOrder("v1", "v2"));

                // 2. A dtype change for the same version is dead-lettered; so is a version that does not exist yet.
                topics.produce("samples", List.of(record("f64-early", serialize(endpoints, float64Sample("f64-early", "v1"))),
                        record("f64-v2-early", serialize(endpoints, float64Sample("f64-v2-early", "v2")))));
                List<ConsumerRecord<byte[], byte[]>> dead = topics.readUntil("samples-dlq", r -> r.size() >= 2, Duration.ofSeconds(30));
                assertThat(dead).extracting(r -> new String(r.headers().lastHeader("shardflow.dlq.reason").value(), StandardCharsets.UTF_8))
                        .containsExactlyInAnyOrder("DTYPE_MISMATCH", "UNKNOWN_VERSION");

                // 3. Once the new version exists, float64 samples flow into it.
                catalog.create(spec("v2", "image:float64:2x4"));
                Thread.sleep(500);
                topics.produce("samples", List.of(record("f64-0", serialize(endpoints, float64Sample("f64-0", "v2"))),
                        record("f64-1", serialize(endpoints, float64Sample("f64-1", "v2")))));
                CommitLog v2 = new CommitLog(store, "evo", "v2", Clock.systemUTC());
                await().atMost(Duration.ofSeconds(60)).until(() -> v2.latest().sampleCount() >= 2);
                assertThat(v2.latest().sampleCount()).isEqualTo(2);
                assertThat(v1.latest().sampleCount()).as("nothing of the dtype change leaked into v1").isEqualTo(2 * PER_SCHEMA);
            } finally {
                sink.close();
                ingest.close();
            }
        }
    }

    private static DatasetSpec spec(String version, String image) {
        return TestStack.spec("evo", version, "schema evolution", image, "label:int64");
    }

    private static Sample sample(String id, String version) {
        return SampleBuilder.forDataset("evo", version).id(id).device("dev").producedAt(Instant.ofEpochMilli(1))
                .float32("image", new float[] {1, 2, 3, 4, 5, 6, 7, 8}, 2, 4).int64("label", new long[] {1})
                .attribute("schema", id.substring(0, 2)).build();
    }

    private static Sample float64Sample(String id, String version) {
        return SampleBuilder.forDataset("evo", version).id(id).device("dev").producedAt(Instant.ofEpochMilli(1))
                .float64("image", new double[] {1, 2, 3, 4, 5, 6, 7, 8}, 2, 4).int64("label", new long[] {1}).build();
    }

    /** The same sample written with "Sample v2": one more optional field, which the registry accepts as a new version. */
    private static GenericRecord withNewOptionalField(Sample sample) {
        Schema v1 = Sample.getClassSchema();
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : v1.getFields()) {
            fields.add(new Schema.Field(f, f.schema()));
        }
        fields.add(new Schema.Field("qualityScore", Schema.createUnion(Schema.create(Schema.Type.NULL), Schema.create(Schema.Type.DOUBLE)),
                "added in v2", Schema.Field.NULL_DEFAULT_VALUE));
        Schema v2 = Schema.createRecord(v1.getName(), v1.getDoc(), v1.getNamespace(), false, fields);
        GenericRecord copy = (GenericRecord) GenericData.get().deepCopy(v1, sample);
        GenericRecordBuilder builder = new GenericRecordBuilder(v2);
        for (Schema.Field f : v1.getFields()) {
            builder.set(f.name(), copy.get(f.name()));
        }
        // Generic data carries timestamp-millis as a plain long.
        builder.set("producedAt", sample.getProducedAt().toEpochMilli());
        return builder.set("qualityScore", 0.93).build();
    }

    private static List<String> schemaVersionsIn(S3ObjectStore store, ShardEntry shard) {
        try {
            Path file = Files.createTempFile("evo", ".h5");
            Files.delete(file);
            store.download(shard.objectKey(), file);
            List<String> versions = new ShardReader().read(file).rows().stream().map(SampleRow::sampleId)
                    .map(id -> id.substring(0, 2)).distinct().toList();
            Files.deleteIfExists(file);
            return versions;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static ProducerRecord<byte[], byte[]> record(String key, byte[] value) {
        return new ProducerRecord<>("samples", key.getBytes(StandardCharsets.UTF_8), value);
    }

    private static byte[] serialize(StackEndpoints endpoints, Object value) {
        try (AvroKafkaSerializer<Object> serializer = new AvroKafkaSerializer<>()) {
            serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, endpoints.registryUrl(), SerdeConfig.AUTO_REGISTER_ARTIFACT, true), false);
            return serializer.serialize("samples", value);
        }
    }

}
