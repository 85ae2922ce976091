package io.shardflow.ingest.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.app.spec.SpecSource;
import io.shardflow.ingest.topology.IngestMetrics;
import io.shardflow.ingest.topology.IngestTopology;
import io.shardflow.ingest.validate.SampleDecoder;
import io.shardflow.app.validate.SampleLimits;
import io.shardflow.app.validate.SampleValidator;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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

/**
 * The ingest topology in a {@link TopologyTestDriver}, with an in-memory registry and the
 * {@link TestSamples} dataset as the only one in the catalog unless another {@link SpecSource} is given.
 */
public final class IngestDriver implements AutoCloseable {

    public static final IngestTopology.Topics TOPICS = new IngestTopology.Topics("samples", "shard-assignments", "samples-dlq");
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final InMemoryRegistry registry = new InMemoryRegistry();
    private final AvroKafkaSerializer<Object> serializer = new AvroKafkaSerializer<>(registry);
    private final TopologyTestDriver driver;
    private final TestInputTopic<byte[], byte[]> samples;
    private final TestOutputTopic<byte[], byte[]> assignments;
    private final TestOutputTopic<byte[], byte[]> deadLetters;
    private final AvroKafkaDeserializer<Object> deserializer;
    /** Every value piped to the samples topic, by offset: what shard-sink would read back. */
    private final List<byte[]> piped = new ArrayList<>();

    /** Settings of one driver; {@link #defaults} are small enough to hit every limit cheaply. */
    public record Options(SealLimits seal, SampleLimits sampleLimits, long maxRecordBytes, long maxDeadLetterBytes,
                          SpecSource specs, Duration queueSequenceHorizon) {

        public static Options defaults(SealLimits seal) {
            return new Options(seal, SampleLimits.withMaxSampleBytes(1 << 20), 4096, 1 << 20, testCatalog(),
                    Duration.ofMillis(IngestConfig.DEFAULT_QUEUE_SEQUENCE_HORIZON_MS));
        }

        public Options withSpecs(SpecSource other) {
            return new Options(seal, sampleLimits, maxRecordBytes, maxDeadLetterBytes, other, queueSequenceHorizon);
        }

        public Options withMaxRecordBytes(long records, long deadLetters) {
            return new Options(seal, sampleLimits, records, deadLetters, specs, queueSequenceHorizon);
        }

        public Options withQueueSequenceHorizon(Duration horizon) {
            return new Options(seal, sampleLimits, maxRecordBytes, maxDeadLetterBytes, specs, horizon);
        }
    }

    public IngestDriver(Path stateDir, Options options) {
        serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, "http://unused", SerdeConfig.AUTO_REGISTER_ARTIFACT, true), false);
        deserializer = new AvroKafkaDeserializer<>(registry);
        deserializer.configure(Map.of(SerdeConfig.REGISTRY_URL, "http://unused", AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true), false);
        var topology = IngestTopology.build(new IngestTopology.Settings(TOPICS, options.seal(), Duration.ofHours(1),
                        Duration.ofMillis(100), options.maxRecordBytes(), options.maxDeadLetterBytes(), options.queueSequenceHorizon()),
                () -> new SampleDecoder(deserializer), new SampleValidator(options.specs(), options.sampleLimits()),
                new IngestMetrics(new SimpleMeterRegistry()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ingest-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(topology, props, START);
        samples = driver.createInputTopic(TOPICS.samples(), new ByteArraySerializer(), new ByteArraySerializer(), START, Duration.ofMillis(1));
        assignments = driver.createOutputTopic(TOPICS.assignments(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        deadLetters = driver.createOutputTopic(TOPICS.deadLetters(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** A catalog holding only {@link TestSamples#spec()}. */
    public static SpecSource testCatalog() {
        DatasetSpec spec = TestSamples.spec();
        return new SpecSource() {
            @Override
            public Optional<DatasetSpec> find(String dataset, String version) {
                return dataset.equals(spec.name()) && version.equals(spec.version()) ? Optional.of(spec) : Optional.empty();
            }

            @Override
            public boolean datasetExists(String dataset) {
                return dataset.equals(spec.name());
            }
        };
    }

    public byte[] encode(Object value) {
        return serializer.serialize(TOPICS.samples(), value);
    }

    public void publish(Sample sample) {
        pipe(sample.getSampleId(), encode(sample));
    }

    public void pipe(String key, byte[] value) {
        piped.add(value);
        samples.pipeInput(key.getBytes(StandardCharsets.UTF_8), value);
    }

    /** Publishes with an explicit record timestamp, as the broker would stamp it. */
    public void pipe(String key, byte[] value, Instant timestamp) {
        piped.add(value);
        samples.pipeInput(key.getBytes(StandardCharsets.UTF_8), value, timestamp);
    }

    /** Publishes with headers and an explicit record timestamp, as the broker would stamp it. */
    public void pipe(String key, byte[] value, org.apache.kafka.common.header.Headers headers, Instant timestamp) {
        piped.add(value);
        samples.pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), value, headers, timestamp));
    }

    /** The queue-sequence store, as the processor sees it: what the tests inspect. */
    public org.apache.kafka.streams.state.KeyValueStore<String, io.shardflow.ingest.dedupe.QueuePosition> queuePositions() {
        return driver.getKeyValueStore(IngestTopology.QUEUE_SEQUENCE_STORE);
    }

    public void advanceWallClockTime(Duration duration) {
        driver.advanceWallClockTime(duration);
    }

    public List<ShardEvent> drainAssignments() {
        return assignments.readRecordsToList().stream().map(r -> {
            ShardEvent event = ShardEventCodec.decode(r.value());
            String expectedKey = new ShardId(event.getDataset(), event.getVersion(), event.getLane(), event.getSequence()).toString();
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(expectedKey);
            return event;
        }).toList();
    }

    /** The sample an assignment names, read back from the samples topic at its source offset, as shard-sink does. */
    public Sample assignedSample(ShardEvent event) {
        long offset = ((SampleAssigned) event.getBody()).getSourceOffset();
        assertThat(offset).as("source offset").isBetween(0L, piped.size() - 1L);
        return (Sample) deserializer.deserialize(TOPICS.samples(), piped.get((int) offset));
    }

    public List<TestRecord<byte[], byte[]>> drainDeadLetters() {
        return deadLetters.readRecordsToList();
    }

    public static String header(TestRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        driver.close();
    }
}
