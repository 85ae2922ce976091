package io.shardflow.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardflow.chaos.sink.FaultInjectingSinkApp;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.ServiceProcess;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos harness's build of shard-sink on real processes: with a crash point armed it halts in
 * the chosen window of the commit protocol, exit code 137 and the line the harness looks for; the
 * same shard-sink restarted without faults (the production main class) finishes the work, so the
 * crash cost nothing but a replay.
 */
class FaultInjectingSinkTest {

    private static final String DATASET = "faults";
    private static final String VERSION = "v1";
    private static final int SAMPLES = 40;

    @TempDir
    Path work;

    @Test
    void shouldHaltAtTheArmedCrashPointAndLoseNothingOnceRestarted() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            stack.createDataset(DATASET, VERSION, "fault injection test", "image:float32:3x8x8", "label:int64");
            IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 10, 1 << 20,
                    Duration.ofSeconds(1), work.resolve("ingest"))));
            Map<String, String> sinkSettings = PipelineSettings.sink(endpoints, work.resolve("sink"), "faulty-sink");
            try (ServiceProcess faulty = ServiceProcess.start("faulty-sink", FaultInjectingSinkApp.class.getName(), sinkSettings,
                    work.resolve("faulty"), ServiceProcess.DEFAULT_JVM_OPTIONS, FaultInjectingSinkApp.arguments("after-upload:1", ""));
                 EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples",
                         Map.of())) {
                SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, "cam", 3, 8, 10, 7);
                for (long n = 0; n < SAMPLES; n++) {
                    publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(1_700_000_000_000L + n))).get();
                }

                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> !faulty.isAlive());
                assertThat(faulty.exitCode()).isEqualTo(137);
                assertThat(faulty.ownLog()).contains("FAULT INJECTION: crash point after-upload reached");
                CommitLog log = new CommitLog(stack.store(), DATASET, VERSION, Clock.systemUTC());
                assertThat(log.latest().sampleCount()).as("halted between upload and commit").isZero();

                try (ServiceProcess healthy = ServiceProcess.start("sink", ShardSinkApp.class.getName(),
                        sinkSettings, work.resolve("healthy"), ServiceProcess.DEFAULT_JVM_OPTIONS, List.of())) {
                    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                            .until(() -> log.latest().sampleCount() >= SAMPLES);
                    assertThat(log.latest().sampleCount()).isEqualTo(SAMPLES);
                    healthy.requireAlive();
                }
            } finally {
                ingest.close();
            }
        }
    }
}
