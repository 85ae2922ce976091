package io.shardflow.it.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python reader ({@code python/shardflow}, PyTorch included) on data written by the real
 * pipeline: a real broker, registry and S3 server, ingest-app and shard-sink, samples published
 * through the edge client. Once they are committed, {@code python -m pytest python/tests_integration}
 * runs against the S3 server with a JSON file of what was published; it checks exactly-once
 * coverage across 2 ranks x 2 DataLoader workers, the values, mid-epoch resume, checkpoints as the
 * sink wrote them, checksum detection and follow mode (committing a snapshot itself, create-only).
 */
class PythonReaderTest {

    private static final int SAMPLES = 400;
    private static final int WAVES = 10;
    private static final String DATASET = "cams";
    private static final String VERSION = "v1";
    private static final String DEVICE = "cam-7";
    private static final long PRODUCED_AT = 1_700_000_000_000L;
    private static final Duration PYTEST_TIMEOUT = Duration.ofMinutes(10);

    @TempDir
    Path work;

    @Test
    void shouldReadThePipelinesDatasetFromPythonExactlyOncePerEpochWithThePublishedValues() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            S3ObjectStore store = stack.store();
            stack.createDataset(DATASET, VERSION, "python reader test", "image:float32:3x8x8", "label:int64");
            SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, DEVICE, 3, 8, 10, 42);

            Snapshot snapshot = runPipeline(endpoints, store, synthetic);
            assertThat(snapshot.sampleCount()).isEqualTo(SAMPLES);
            assertThat(snapshot.snapshotId()).as("enough commits for shard-sink to write a checkpoint (every 10)")
                    .isGreaterThanOrEqualTo(10);

            Path expected = writeExpected(endpoints, snapshot, synthetic);
            PytestRun run = runPytest(endpoints, expected);
            System.out.println("---- python -m pytest python/tests_integration (exit " + run.exitCode() + ") ----");
            System.out.println(run.output());
            assertThat(run.exitCode()).as("pytest exit code; its output is above").isZero();
            assertThat(run.output()).as("every test ran, none skipped").containsPattern("\\d+ passed")
                    .doesNotContain("skipped").doesNotContain("failed");
        }
    }

    /** Publishes the samples, waits until all are committed, and stops both services. */
    private Snapshot runPipeline(StackEndpoints endpoints, S3ObjectStore store, SyntheticSamples synthetic) throws Exception {
        IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 25, 1 << 20,
                Duration.ofSeconds(2), work.resolve("ingest"))));
        ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "it-sink")));
        try {
            CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
            try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(),
                    "samples", Map.of())) {
                // In waves, each committed before the next: at least one snapshot per wave, so the
                // log is long enough for the sink to have written a checkpoint, however it batches.
                int perWave = SAMPLES / WAVES;
                for (int n = 0; n < SAMPLES; n++) {
                    publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(PRODUCED_AT + n))).get(30, TimeUnit.SECONDS);
                    long published = n + 1;
                    if (published % perWave == 0) {
                        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                                .until(() -> log.latest().sampleCount() >= published);
                    }
                }
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> log.latest().sampleCount() >= SAMPLES);
            return log.latest();
        } finally {
            // Stopped before Python runs: its follow test commits the next snapshot itself.
            sink.close();
            ingest.close();
        }
    }

    /** What was published, per sample id, for the Python side to compare with what it reads. */
    private Path writeExpected(StackEndpoints endpoints, Snapshot snapshot, SyntheticSamples synthetic) throws Exception {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("uri", "s3://" + endpoints.bucket());
        root.put("dataset", DATASET);
        root.put("version", VERSION);
        root.put("snapshotId", snapshot.snapshotId());
        ObjectNode samples = root.putObject("samples");
        for (int n = 0; n < SAMPLES; n++) {
            ObjectNode sample = samples.putObject(synthetic.sampleId(n));
            sample.put("label", synthetic.label(n));
            sample.put("producedAt", PRODUCED_AT + n);
            sample.put("deviceId", DEVICE);
            ArrayNode image = sample.putArray("image");
            for (float value : synthetic.image(n)) {
                image.add(value); // Jackson writes the shortest text that reads back as this float
            }
        }
        Path file = work.resolve("expected.json");
        json.writeValue(file.toFile(), root);
        return file;
    }

    private record PytestRun(int exitCode, String output) {
    }

    private PytestRun runPytest(StackEndpoints endpoints, Path expected) throws Exception {
        Path repo = Path.of(System.getProperty("shardflow.repo", "..")).toAbsolutePath().normalize();
        Path output = work.resolve("pytest.log");
        ProcessBuilder builder = new ProcessBuilder(List.of(python().toString(), "-m", "pytest", "-q", "-p",
                "no:cacheprovider", repo.resolve("python").resolve("tests_integration").toString()))
                .directory(repo.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        Map<String, String> env = builder.environment();
        // The package is read from the source tree, so the test checks this commit's Python code.
        env.put("PYTHONPATH", repo.resolve("python").toString());
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        env.put("SHARDFLOW_S3_ENDPOINT", endpoints.s3Endpoint());
        env.put("SHARDFLOW_S3_ACCESS_KEY", endpoints.s3AccessKey());
        env.put("SHARDFLOW_S3_SECRET_KEY", endpoints.s3SecretKey());
        env.put("SHARDFLOW_CACHE_DIR", work.resolve("python-cache").toString());
        env.put("SHARDFLOW_IT_EXPECTED", expected.toString());
        Process process = builder.start();
        if (!process.waitFor(PYTEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new PytestRun(-1, Files.readString(output, StandardCharsets.UTF_8) + "\n(killed after " + PYTEST_TIMEOUT + ")");
        }
        return new PytestRun(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    /** The venv made by scripts/setup-python.sh (h5py, numpy, boto3, pytest, torch), or SHARDFLOW_PYTHON. */
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
