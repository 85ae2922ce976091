package io.shardflow.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SampleBuilder;
import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.Role;
import io.shardflow.stack.ServiceProcess;
import io.shardflow.stack.StackEndpoints;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python edge SDK ({@code python/shardflow/edge}) against the real pipeline: broker, registry and
 * S3 server, ingest-app and shard-sink each their own process. {@code python -m pytest
 * python/tests_edge_integration} then (1) publishes a sample that edge-client published just before,
 * and this test compares the two records on the samples topic byte for byte; (2) resends a queue's
 * entries after three dedupe windows (ingest-app runs with a 2-second window), which ingest-app must
 * still drop; (3) kills the producing process with SIGKILL at random points 20 times per queue
 * durability ("fsync" and "process"; SHARDFLOW_EDGE_IT_KILLS, 100 with scripts/test.sh --long) while this test stops and restarts the broker, and checks from
 * the shards that every sample whose {@code send} returned is in the dataset exactly once, whole.
 */
class PythonEdgeProducerTest {

    private static final Duration PYTEST_TIMEOUT = Duration.ofMinutes(25);
    private static final String GOLDEN_ID = "golden-it";

    @TempDir
    Path work;

    @Test
    void shouldDeliverThePythonSdksSamplesExactlyOnceAsEdgeClientWritesThem() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            stack.createDataset("edge", "v1", "python edge sdk test", "image:float32:3x8x8", "label:int64");
            Map<String, String> ingestSettings = new HashMap<>(PipelineSettings.ingest(endpoints, 500, 64L << 20,
                    Duration.ofSeconds(2), work.resolve("ingest-state")));
            ingestSettings.put(IngestConfig.DEDUPE_WINDOW_MS, "2000");
            try (ServiceProcess ingest = ServiceProcess.start("ingest-app", IngestApp.class.getName(), ingestSettings, work.resolve("ingest"));
                 ServiceProcess sink = ServiceProcess.start("shard-sink", ShardSinkApp.class.getName(),
                         PipelineSettings.sink(endpoints, work.resolve("sink-spool"), "edge-it-sink"), work.resolve("sink"))) {
                publishGoldenWithEdgeClient(endpoints);
                Path control = Files.createDirectories(work.resolve("control"));
                BrokerOutages outages = new BrokerOutages(stack, control);
                outages.start();
                PythonRun run;
                try {
                    run = runPytest(endpoints, control);
                } finally {
                    outages.finish();
                }
                System.out.println("---- python -m pytest python/tests_edge_integration (exit " + run.exitCode() + ") ----");
                System.out.println(run.output());
                System.out.println("broker outages: " + outages.count());
                assertThat(run.exitCode()).as("pytest exit code; its output is above").isZero();
                assertThat(run.output()).containsPattern("4 passed").doesNotContain("skipped");
                assertThat(outages.count()).as("the broker was stopped and restarted during the kills").isGreaterThanOrEqualTo(2);
                assertThat(ingest.isAlive()).isTrue();
                assertThat(sink.isAlive()).isTrue();
            }
            assertGoldenRecordsEqual(endpoints);
        }
    }

    private static void publishGoldenWithEdgeClient(StackEndpoints endpoints) throws Exception {
        float[] image = new float[192];
        for (int i = 0; i < image.length; i++) {
            image[i] = i * 0.01f;
        }
        try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", Map.of())) {
            publisher.publish(SampleBuilder.forDataset("edge", "v1").id(GOLDEN_ID).device("golden-device")
                    .producedAt(Instant.ofEpochMilli(1_700_000_000_123L)).float32("image", image, 3, 8, 8).int64("label", new long[] {3})
                    .attribute("b", "2").attribute("a", "1").build()).get(60, TimeUnit.SECONDS);
        }
    }

    /** Both records of the golden sample: key and value equal; only the Python one carries queue headers. */
    private static void assertGoldenRecordsEqual(StackEndpoints endpoints) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, endpoints.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<byte[], byte[]>> golden = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor("samples").stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (GOLDEN_ID.equals(new String(record.key(), StandardCharsets.UTF_8))) {
                        golden.add(record);
                    }
                }
            }
        }
        assertThat(golden).as("edge-client's record and the Python SDK's").hasSize(2);
        ConsumerRecord<byte[], byte[]> java = golden.stream().filter(r -> r.headers().lastHeader("shardflow.seq") == null).findFirst()
                .orElseThrow();
        ConsumerRecord<byte[], byte[]> python = golden.stream().filter(r -> r.headers().lastHeader("shardflow.seq") != null).findFirst()
                .orElseThrow();
        assertThat(python.value()).as("value bytes: framing, content id, Avro body").isEqualTo(java.value());
        assertThat(python.key()).isEqualTo(java.key());
        assertThat(python.partition()).as("the same key goes to the same partition from either SDK").isEqualTo(java.partition());
    }

    /** Stops and restarts the broker (down 4-7 s, up 4-8 s) between the Python side's outages-on and outages-off, each round. */
    private static final class BrokerOutages extends Thread {
        private final TestStack stack;
        private final Path control;
        private final AtomicInteger count = new AtomicInteger();
        private volatile boolean finished;

        BrokerOutages(TestStack stack, Path control) {
            super("broker-outages");
            this.stack = stack;
            this.control = control;
            setDaemon(true);
        }

        @Override
        public void run() {
            try {
                while (!finished) { // one round per crash test (one per durability)
                    while (!finished && !Files.exists(control.resolve("outages-on"))) {
                        Thread.sleep(200);
                    }
                    while (!finished && !Files.exists(control.resolve("outages-off"))) {
                        Thread.sleep(ThreadLocalRandom.current().nextLong(4_000, 8_000));
                        stack.servers().stop(Role.BROKER);
                        count.incrementAndGet();
                        Thread.sleep(ThreadLocalRandom.current().nextLong(4_000, 7_000));
                        stack.servers().start(Role.BROKER);
                    }
                    Files.writeString(control.resolve("broker-stable"), "up");
                    while (!finished && Files.exists(control.resolve("outages-off"))) {
                        Thread.sleep(200); // the Python side removes the round's files, outages-on first
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException("broker outage thread failed", e);
            }
        }

        int count() {
            return count.get();
        }

        void finish() throws InterruptedException {
            finished = true;
            join(TimeUnit.SECONDS.toMillis(60));
            if (!stack.servers().isRunning(Role.BROKER)) {
                stack.servers().start(Role.BROKER);
            }
        }
    }

    private record PythonRun(int exitCode, String output) {
    }

    private PythonRun runPytest(StackEndpoints endpoints, Path control) throws Exception {
        Path repo = Path.of(System.getProperty("shardflow.repo", "..")).toAbsolutePath().normalize();
        Path output = work.resolve("pytest.log");
        ProcessBuilder builder = new ProcessBuilder(List.of(python().toString(), "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                repo.resolve("python").resolve("tests_edge_integration").toString()))
                .directory(repo.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        Map<String, String> env = builder.environment();
        env.put("PYTHONPATH", repo.resolve("python").toString());
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        env.put("SHARDFLOW_BOOTSTRAP_SERVERS", endpoints.bootstrapServers());
        env.put("SHARDFLOW_REGISTRY_URL", endpoints.registryUrl());
        env.put("SHARDFLOW_S3_ENDPOINT", endpoints.s3Endpoint());
        env.put("SHARDFLOW_S3_ACCESS_KEY", endpoints.s3AccessKey());
        env.put("SHARDFLOW_S3_SECRET_KEY", endpoints.s3SecretKey());
        env.put("SHARDFLOW_EDGE_IT_WORK", Files.createDirectories(work.resolve("python")).toString());
        env.put("SHARDFLOW_EDGE_IT_CONTROL", control.toString());
        Process process = builder.start();
        if (!process.waitFor(PYTEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new PythonRun(-1, Files.readString(output, StandardCharsets.UTF_8) + "\n(killed after " + PYTEST_TIMEOUT + ")");
        }
        return new PythonRun(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    private static Path python() {
        String configured = System.getenv("SHARDFLOW_PYTHON");
        Path python = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "shardflow", "venv", "bin", "python");
        if (!Files.isExecutable(python)) {
            throw new IllegalStateException("no Python at " + python + "; run scripts/setup-python.sh or set SHARDFLOW_PYTHON");
        }
        return python;
    }
}
