package io.shardflow.it.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.edge.queue.DurableQueue;
import io.shardflow.edge.queue.QueuedPublisher;
import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * edge-client's {@link QueuedPublisher} on the real pipeline: samples queued while the broker and the
 * registry are unreachable are delivered once they are; the queue as it was before delivery,
 * restored after three dedupe windows (ingest-app runs with a 2-second one) and delivered again, adds
 * nothing to the dataset: ingest-app drops the resends by queue id and seq.
 */
class QueuedPublisherTest {

    private static final int SAMPLES = 30;

    @TempDir
    Path work;

    @Test
    void shouldDeliverAnOfflineQueueOnceAndDropItsLateResendsFromTheDataset() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            stack.createDataset("jq", "v1", "queued publisher test", "image:float32:3x8x8", "label:int64");
            Map<String, String> ingestSettings = new HashMap<>(PipelineSettings.ingest(endpoints, 10, 64L << 20, Duration.ofSeconds(1),
                    work.resolve("ingest-state")));
            ingestSettings.put(IngestConfig.DEDUPE_WINDOW_MS, "2000");
            try (IngestApp ingest = IngestApp.start(new HashMap<>(ingestSettings));
                 ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "jq-sink")))) {
                SyntheticSamples synthetic = new SyntheticSamples("jq", "v1", "java-queue", 3, 8, 10, 5);
                Path queue = work.resolve("queue");
                DurableQueue.Settings settings = DurableQueue.Settings.defaults();
                try (QueuedPublisher offline = QueuedPublisher.create("127.0.0.1:9", "http://127.0.0.1:9/apis/registry/v3", "samples",
                        queue, settings, Map.of())) {
                    for (int n = 0; n < SAMPLES; n++) {
                        offline.send(synthetic.sample(n, Instant.ofEpochMilli(1_700_000_000_000L + n)));
                    }
                    assertThat(offline.queue().pending()).isEqualTo(SAMPLES);
                }
                Path copy = work.resolve("queue-before-delivery");
                copyTree(queue, copy);
                deliver(endpoints, queue, settings);
                CommitLog log = new CommitLog(stack.store(), "jq", "v1", Clock.systemUTC());
                await().atMost(Duration.ofSeconds(90)).until(() -> log.latest().sampleCount() >= SAMPLES);
                Thread.sleep(6_000); // three dedupe windows of broker time
                deleteTree(queue);
                copyTree(copy, queue);
                deliver(endpoints, queue, settings);
                Thread.sleep(8_000); // several seal ages: a resend that got through would be committed by now
                assertThat(log.latest().sampleCount()).as("each sample once, the late resends dropped").isEqualTo(SAMPLES);
            }
        }
    }

    private static void deliver(StackEndpoints endpoints, Path queue, DurableQueue.Settings settings) throws Exception {
        try (QueuedPublisher publisher = QueuedPublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", queue,
                settings, Map.of())) {
            assertThat(publisher.flush(60_000)).as("entries not acknowledged").isZero();
        }
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                if (p.getFileName().toString().equals("lock")) {
                    continue;
                }
                Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
