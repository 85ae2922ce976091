package io.shardflow.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier.VerificationReport;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.dataset.shard.ShardWriterKind;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.it.support.StackSource;
import io.shardflow.sink.config.SinkConfig;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackEndpoints;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The walking skeleton on real parts: a real Kafka broker, Apicurio registry and S3 server (S3Proxy
 * and MinIO), ingest-app and shard-sink running for real, samples published through the edge client,
 * and the result checked from object storage and through h5py. The servers run as local processes,
 * and once more as containers on the locally built images.
 */
class PipelineTest {

    private static final int SAMPLES = 600;
    private static final String DATASET = "cams";
    private static final String VERSION = "v1";

    @TempDir
    Path work;

    static Stream<Arguments> stacks() {
        return Stream.of(Arguments.of(StackSource.LOCAL_PROCESSES, S3Kind.S3PROXY), Arguments.of(StackSource.LOCAL_PROCESSES, S3Kind.MINIO),
                Arguments.of(StackSource.CONTAINERS, S3Kind.MINIO));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("stacks")
    void shouldCommitEveryPublishedSampleExactlyOnceWithTheValuesPublished(StackSource source, S3Kind s3Kind) throws Exception {
        runPipeline(source, s3Kind, Map.of());
    }

    /** The same run with shard-sink writing through jHDF (whole shard in heap) instead of the default streaming writer. */
    @Test
    void shouldCommitTheSameShardsWithTheJhdfShardWriter() throws Exception {
        runPipeline(StackSource.LOCAL_PROCESSES, S3Kind.S3PROXY, Map.of(SinkConfig.SHARD_WRITER, ShardWriterKind.JHDF.settingValue()));
    }

    private void runPipeline(StackSource source, S3Kind s3Kind, Map<String, String> sinkSettings) throws Exception {
        try (TestStack stack = TestStack.start(work, s3Kind, source)) {
            StackEndpoints endpoints = stack.endpoints();
            S3ObjectStore store = stack.store();
            stack.createDataset(DATASET, VERSION, "pipeline test", "image:float32:3x8x8", "label:int64");

            IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 64, 1 << 20,
                    Duration.ofSeconds(2), work.resolve("ingest"))));
            Map<String, Object> sinkConfig = new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "it-sink"));
            sinkConfig.putAll(sinkSettings);
            ShardSinkApp sink = ShardSinkApp.start(sinkConfig);
            try {
                SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, "cam-7", 3, 8, 10, 99);
                try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", Map.of())) {
                    for (int n = 0; n < SAMPLES; n++) {
                        publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(1_700_000_000_000L + n))).get(30, TimeUnit.SECONDS);
                    }
                }
                byte[] garbage = "not a sample".getBytes(StandardCharsets.UTF_8);
                produceRaw(endpoints, garbage);

                CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                        .until(() -> log.latest().sampleCount() >= SAMPLES);
                Snapshot snapshot = log.latest();

                assertThat(snapshot.sampleCount()).isEqualTo(SAMPLES);
                assertThat(snapshot.snapshotId()).as("several commits, one snapshot each").isGreaterThan(1);
                assertEveryShardMatchesItsObjectAndHoldsThePublishedValues(store, snapshot, synthetic);
                assertDeadLetter(endpoints, garbage);
            } finally {
                sink.close();
                ingest.close();
            }
        }
    }

    private void assertEveryShardMatchesItsObjectAndHoldsThePublishedValues(S3ObjectStore store, Snapshot snapshot,
                                                                            SyntheticSamples synthetic) throws Exception {
        Set<String> expectedIds = new HashSet<>();
        for (int n = 0; n < SAMPLES; n++) {
            expectedIds.add(synthetic.sampleId(n));
        }
        // Every object referenced once, with the sha256, size and row count its entry records; no sample id twice.
        VerificationReport verified = new SnapshotVerifier(store, Files.createDirectories(work.resolve("verify"))).verify(snapshot);
        assertThat(verified.problems()).isEmpty();
        assertThat(verified.sampleIds()).isEqualTo(expectedIds);
        // The values, read back through h5py: a reader independent of the Java writer.
        List<String> seenIds = new ArrayList<>();
        for (ShardEntry shard : snapshot.shards()) {
            Path file = work.resolve("shard.h5");
            Files.deleteIfExists(file);
            store.download(shard.objectKey(), file);

            JsonNode h5 = PythonShardReader.read(file);
            assertThat(h5.get("count").asInt()).isEqualTo(shard.sampleCount());
            assertThat(h5.get("shard_id").asText()).isEqualTo(shard.shardId());
            JsonNode images = h5.get("tensors").get("image");
            assertThat(images.get("shape")).hasToString("[" + shard.sampleCount() + ",3,8,8]");
            assertThat(images.get("dtype").asText()).isEqualTo("float32");
            JsonNode labels = h5.get("tensors").get("label").get("values");
            for (int row = 0; row < shard.sampleCount(); row++) {
                String id = h5.get("sample_ids").get(row).asText();
                seenIds.add(id);
                long n = Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
                float[] published = synthetic.image(n);
                JsonNode stored = images.get("values").get(row);
                assertThat(stored.size()).isEqualTo(published.length);
                for (int i = 0; i < published.length; i++) {
                    assertThat((float) stored.get(i).asDouble()).as("%s image[%d]", id, i).isEqualTo(published[i]);
                }
                assertThat(labels.get(row).get(0).asLong()).as("%s label", id).isEqualTo(synthetic.label(n));
                assertThat(h5.get("device_ids").get(row).asText()).isEqualTo("cam-7");
                assertThat(h5.get("produced_at").get(row).asLong()).isEqualTo(1_700_000_000_000L + n);
                assertThat(h5.get("attributes").get(row).get("source").asText()).isEqualTo("synthetic");
            }
        }
        assertThat(seenIds).doesNotHaveDuplicates();
        assertThat(new HashSet<>(seenIds)).isEqualTo(expectedIds);
    }

    private static void produceRaw(StackEndpoints endpoints, byte[] value) throws Exception {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, endpoints.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>("samples", "garbage".getBytes(StandardCharsets.UTF_8), value)).get(30, TimeUnit.SECONDS);
        }
    }

    private static void assertDeadLetter(StackEndpoints endpoints, byte[] expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, endpoints.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-dlq-reader");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("samples-dlq"));
            List<ConsumerRecord<byte[], byte[]>> dead = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(500)).forEach(dead::add);
                return !dead.isEmpty();
            });
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).value()).isEqualTo(expected);
            assertThat(new String(dead.get(0).headers().lastHeader("shardflow.dlq.reason").value(), StandardCharsets.UTF_8))
                    .isEqualTo("NOT_AVRO");
        }
    }
}
