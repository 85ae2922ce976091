package io.shardflow.it.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.it.support.StackSource;
import io.shardflow.it.support.TestStack;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.S3Kind;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SIGTERM reaches each service, run from its distribution as a real process, in the middle of a
 * stream of samples: each exits 0 well within its shutdown timeout, /ready answers 200 again after
 * the restart, and the dataset ends with every published sample exactly once. The servers run
 * as local processes, and once more as containers.
 */
class GracefulShutdownTest {

    private static final String DATASET = "term";
    private static final String VERSION = "v1";
    private static final int SAMPLES = 1200;
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path work;

    @ParameterizedTest(name = "{0}")
    @EnumSource(StackSource.class)
    void shouldStopEachServiceCleanlyOnSigtermMidRunWithoutLosingOrDuplicatingASample(StackSource source) throws Exception {
        try (TestStack stack = TestStack.start(work, S3Kind.MINIO, source)) {
            StackEndpoints endpoints = stack.endpoints();
            S3ObjectStore store = stack.store();
            stack.createDataset(DATASET, VERSION, "graceful shutdown", "image:float32:3x8x8", "label:int64");

            Map<String, String> ingestSettings = new HashMap<>(PipelineSettings.ingest(endpoints, 40, 1 << 20,
                    Duration.ofSeconds(2), work.resolve("ingest-state")));
            Map<String, String> sinkSettings = new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("spool"), "term-sink"));
            for (Map<String, String> settings : List.of(ingestSettings, sinkSettings)) {
                settings.put("shutdown.timeout.ms", Long.toString(SHUTDOWN_TIMEOUT.toMillis()));
            }
            try (DistributionProcess ingest = DistributionProcess.start("ingest-app", ingestSettings, freePort(), work.resolve("ingest"));
                 DistributionProcess sink = DistributionProcess.start("shard-sink", sinkSettings, freePort(), work.resolve("sink"))) {
                awaitReady(ingest);
                awaitReady(sink);

                SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, "cam-term", 3, 8, 10, 7);
                Set<String> published = new HashSet<>();
                try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", Map.of())) {
                    CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
                    publish(publisher, synthetic, 0, SAMPLES / 3, published);
                    // Wait until the sink is mid-stream (shards are being uploaded and committed), then stop it.
                    await().atMost(Duration.ofSeconds(90)).until(() -> log.latest().sampleCount() > 0);
                    assertCleanStop(sink);
                    publish(publisher, synthetic, SAMPLES / 3, 2 * SAMPLES / 3, published);
                    sink.restart();
                    awaitReady(sink);

                    assertCleanStop(ingest);
                    publish(publisher, synthetic, 2 * SAMPLES / 3, SAMPLES, published);
                    ingest.restart();
                    awaitReady(ingest);

                    await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                            .until(() -> log.latest().sampleCount() >= SAMPLES);
                    SnapshotVerifier.VerificationReport report = new SnapshotVerifier(store, work.resolve("verify")).verify(log.latest());
                    assertThat(report.problems()).isEmpty();
                    assertThat(report.duplicateIds()).isEmpty();
                    assertThat(report.samples()).isEqualTo(SAMPLES);
                    assertThat(report.sampleIds()).isEqualTo(published);
                }
                assertThat(sink.log()).contains("SIGTERM received").contains("shard-sink stopped in");
                assertThat(ingest.log()).contains("SIGTERM received").contains("ingest-app stopped in");
            }
        }
    }

    private static void assertCleanStop(DistributionProcess service) throws InterruptedException {
        DistributionProcess.Stopped stopped = service.terminate(SHUTDOWN_TIMEOUT.plusSeconds(30));
        assertThat(stopped.exitCode()).as("exit code after SIGTERM; log %s", service.logFile()).isZero();
        // Exit 0 says the service finished within its own budget; the margin is the JVM's exit on a loaded machine.
        assertThat(stopped.took()).as("shutdown time").isLessThan(SHUTDOWN_TIMEOUT.plusSeconds(10));
        System.out.printf("SIGTERM -> exit %d in %d ms (%s)%n", stopped.exitCode(), stopped.took().toMillis(), service.logFile());
    }

    private static void awaitReady(DistributionProcess service) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(300)).until(() -> {
            if (!service.isAlive()) {
                throw new AssertionError("service exited before it was ready; log:\n" + service.log());
            }
            return service.readyStatus() == 200;
        });
    }

    private static void publish(EdgePublisher publisher, SyntheticSamples synthetic, int from, int to, Set<String> published)
            throws Exception {
        for (int n = from; n < to; n++) {
            publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(1_700_000_000_000L + n))).get(30, TimeUnit.SECONDS);
            published.add(synthetic.sampleId(n));
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
