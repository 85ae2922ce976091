package io.shardflow.ingest.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.ingest.spec.SpecSource;
import io.shardflow.ingest.support.InMemoryRegistry;
import io.shardflow.ingest.support.TestSamples;
import io.shardflow.ingest.validate.SampleDecoder;
import io.shardflow.ingest.validate.SampleValidator;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.SealReason;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestTopologyTest {

    private static final IngestTopology.Topics TOPICS = new IngestTopology.Topics("samples", "shard-assignments", "samples-dlq");
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path stateDir;

    private final InMemoryRegistry registry = new InMemoryRegistry();
    private final AvroKafkaSerializer<Object> serializer = new AvroKafkaSerializer<>(registry);
    private TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> samples;
    private TestOutputTopic<byte[], byte[]> assignments;
    private TestOutputTopic<byte[], byte[]> deadLetters;

    private void start(SealLimits limits) {
        serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, "http://unused", SerdeConfig.AUTO_REGISTER_ARTIFACT, true), false);
        AvroKafkaDeserializer<Object> deserializer = new AvroKafkaDeserializer<>(registry);
        deserializer.configure(Map.of(SerdeConfig.REGISTRY_URL, "http://unused", AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true), false);
        DatasetSpec spec = TestSamples.spec();
        SpecSource specs = new SpecSource() {
            @Override
            public Optional<DatasetSpec> find(String dataset, String version) {
                return dataset.equals(spec.name()) && version.equals(spec.version()) ? Optional.of(spec) : Optional.empty();
            }

            @Override
            public boolean datasetExists(String dataset) {
                return dataset.equals(spec.name());
            }
        };
        var topology = IngestTopology.build(new IngestTopology.Settings(TOPICS, limits, Duration.ofHours(1), Duration.ofMillis(100), 4096),
                () -> new SampleDecoder(deserializer), new SampleValidator(specs, 1 << 20), new IngestMetrics(new SimpleMeterRegistry()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ingest-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(topology, props, START);
        samples = driver.createInputTopic(TOPICS.samples(), new ByteArraySerializer(), new ByteArraySerializer(), START, Duration.ofMillis(1));
        assignments = driver.createOutputTopic(TOPICS.assignments(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        deadLetters = driver.createOutputTopic(TOPICS.deadLetters(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @AfterEach
    void stop() {
        if (driver != null) {
            driver.close();
        }
    }

    private byte[] encode(Object value) {
        return serializer.serialize(TOPICS.samples(), value);
    }

    private void publish(Sample sample) {
        samples.pipeInput(sample.getSampleId().getBytes(StandardCharsets.UTF_8), encode(sample));
    }

    private List<ShardEvent> drainAssignments() {
        return assignments.readRecordsToList().stream().map(r -> {
            ShardEvent event = ShardEventCodec.decode(r.value());
            String expectedKey = new io.shardflow.dataset.layout.ShardId(event.getDataset(), event.getVersion(),
                    event.getLane(), event.getSequence()).toString();
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(expectedKey);
            return event;
        }).toList();
    }

    private static String header(TestRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldAssignValidSamplesInOrderAndSealOnCount() {
        start(new SealLimits(3, 1 << 20, Duration.ofMinutes(10)));
        for (int i = 0; i < 4; i++) {
            publish(TestSamples.sample("s-" + i));
        }
        List<ShardEvent> events = drainAssignments();

        assertThat(events).hasSize(5);
        for (int i = 0; i < 3; i++) {
            assertThat(events.get(i).getSequence()).isEqualTo(0L);
            SampleAssigned assigned = (SampleAssigned) events.get(i).getBody();
            assertThat(assigned.getIndex()).isEqualTo(i);
            assertThat(assigned.getSample()).isEqualTo(TestSamples.sample("s-" + i));
        }
        ShardSealed seal = (ShardSealed) events.get(3).getBody();
        assertThat(events.get(3).getSequence()).isEqualTo(0L);
        assertThat(seal.getSampleCount()).isEqualTo(3);
        assertThat(seal.getPayloadBytes()).isEqualTo(3L * TestSamples.PAYLOAD_BYTES);
        assertThat(seal.getReason()).isEqualTo(SealReason.COUNT);
        assertThat(seal.getSpecFingerprint()).isEqualTo(TestSamples.spec().fingerprint());
        assertThat(events.get(4).getSequence()).isEqualTo(1L);
        assertThat(((SampleAssigned) events.get(4).getBody()).getIndex()).isZero();
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldSealBeforeASampleThatWouldExceedTheByteBudget() {
        start(new SealLimits(100, (long) (2.5 * TestSamples.PAYLOAD_BYTES), Duration.ofMinutes(10)));
        for (int i = 0; i < 3; i++) {
            publish(TestSamples.sample("s-" + i));
        }
        List<ShardEvent> events = drainAssignments();

        assertThat(events).hasSize(4);
        ShardSealed seal = (ShardSealed) events.get(2).getBody();
        assertThat(seal.getReason()).isEqualTo(SealReason.BYTES);
        assertThat(seal.getSampleCount()).isEqualTo(2);
        assertThat(events.get(3).getSequence()).isEqualTo(1L);
        assertThat(((SampleAssigned) events.get(3).getBody()).getSample().getSampleId()).isEqualTo("s-2");
    }

    @Test
    void shouldSealAQuietShardOnWallClockAgeOnly() {
        start(new SealLimits(100, 1 << 20, Duration.ofSeconds(30)));
        publish(TestSamples.sample("lonely"));
        assertThat(drainAssignments()).hasSize(1);

        driver.advanceWallClockTime(Duration.ofSeconds(29));
        assertThat(drainAssignments()).isEmpty();

        driver.advanceWallClockTime(Duration.ofSeconds(1));
        List<ShardEvent> events = drainAssignments();
        assertThat(events).hasSize(1);
        ShardSealed seal = (ShardSealed) events.get(0).getBody();
        assertThat(seal.getReason()).isEqualTo(SealReason.AGE);
        assertThat(seal.getSampleCount()).isEqualTo(1);

        driver.advanceWallClockTime(Duration.ofMinutes(5));
        assertThat(drainAssignments()).as("an empty lane is never sealed").isEmpty();
        publish(TestSamples.sample("next"));
        assertThat(drainAssignments().get(0).getSequence()).isEqualTo(1L);
    }

    @Test
    void shouldSendDuplicateSampleIdToDeadLettersAndNotAssignIt() {
        start(new SealLimits(100, 1 << 20, Duration.ofMinutes(10)));
        publish(TestSamples.sample("dup"));
        byte[] again = encode(TestSamples.sample("dup"));
        samples.pipeInput("dup".getBytes(StandardCharsets.UTF_8), again);

        assertThat(drainAssignments()).hasSize(1);
        List<TestRecord<byte[], byte[]>> dead = deadLetters.readRecordsToList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), DeadLetters.REASON_HEADER)).isEqualTo("DUPLICATE_SAMPLE_ID");
        assertThat(dead.get(0).value()).isEqualTo(again);
    }

    @Test
    void shouldSendEachKindOfInvalidRecordToDeadLettersWithItsReasonAndOriginalBytes() {
        start(new SealLimits(100, 1 << 20, Duration.ofMinutes(10)));
        Sample wrongShape = TestSamples.sample("shape", new float[] {1, 2, 3, 4, 5, 6}, 1);
        wrongShape.getTensors().get(0).setShape(List.of(3, 2));
        Sample wrongDtype = TestSamples.sample("dtype");
        wrongDtype.getTensors().get(1).setDtype(io.shardflow.schemas.DType.INT32);
        Sample shortBytes = TestSamples.sample("short", new float[] {1, 2, 3}, 1);
        Sample nan = TestSamples.sample("nan", new float[] {1, Float.NaN, 3, 4}, 1);
        Sample unknownDataset = TestSamples.sample("unknown");
        unknownDataset.setDataset("nope");
        Sample unknownVersion = TestSamples.sample("unknown-version");
        unknownVersion.setVersion("v9");
        Sample missingTensor = TestSamples.sample("missing");
        missingTensor.setTensors(List.of(missingTensor.getTensors().get(0)));

        Map<String, byte[]> cases = new java.util.LinkedHashMap<>();
        cases.put("NOT_AVRO", new byte[] {42, 1, 2, 3, 4, 5, 6});
        cases.put("NULL_VALUE", null);
        cases.put("SHAPE_MISMATCH", encode(wrongShape));
        cases.put("DTYPE_MISMATCH", encode(wrongDtype));
        cases.put("BYTE_LENGTH_MISMATCH", encode(shortBytes));
        cases.put("NON_FINITE_VALUE", encode(nan));
        cases.put("UNKNOWN_DATASET", encode(unknownDataset));
        cases.put("UNKNOWN_VERSION", encode(unknownVersion));
        cases.put("MISSING_TENSOR", encode(missingTensor));
        cases.put("UNKNOWN_SCHEMA", new byte[] {0, 0, 0, 0x7f, 0x7f, 2, 4});
        cases.put("OVERSIZE_SAMPLE", encode(TestSamples.sample("huge", new float[2000], 1)));
        cases.forEach((reason, bytes) -> samples.pipeInput(reason.getBytes(StandardCharsets.UTF_8), bytes));
        publish(TestSamples.sample("good"));

        List<TestRecord<byte[], byte[]>> dead = deadLetters.readRecordsToList();
        assertThat(dead).hasSize(cases.size());
        for (TestRecord<byte[], byte[]> record : dead) {
            String expected = new String(record.key(), StandardCharsets.UTF_8);
            assertThat(header(record, DeadLetters.REASON_HEADER)).as("reason for %s", expected).isEqualTo(expected);
            assertThat(header(record, DeadLetters.DETAIL_HEADER)).isNotBlank();
            assertThat(header(record, DeadLetters.SOURCE_HEADER)).startsWith("samples/0/");
            assertThat(record.value()).isEqualTo(cases.get(expected));
        }
        List<ShardEvent> accepted = drainAssignments();
        assertThat(accepted).hasSize(1);
        assertThat(((SampleAssigned) accepted.get(0).getBody()).getSample().getSampleId()).isEqualTo("good");
    }
}
