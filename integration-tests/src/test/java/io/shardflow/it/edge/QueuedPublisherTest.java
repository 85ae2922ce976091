package io.shardflow.it.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.verify.SnapshotVerifier.VerificationReport;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.edge.queue.DurableQueue;
import io.shardflow.edge.queue.QueuedPublisher;
import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.it.PythonShardReader;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * edge-client's {@link QueuedPublisher} on the real pipeline: samples queued while the broker and the
 * registry are unreachable are delivered once they are; the queue as it was before delivery,
 * restored after three dedupe windows (ingest-app runs with a 2-second one) and delivered again, adds
 * nothing to the dataset: ingest-app drops the resends by queue id and seq. And the publishing JVM
 * ({@link QueuedPublisherChild}) killed with SIGKILL at random points, then started again: every
 * sample whose {@code send} returned is in the dataset exactly once, whole, read back from the shards.
 */
class QueuedPublisherTest {

    private static final int SAMPLES = 30;
    private static final int KILLS = 10;

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

    @Test
    void shouldPutEveryReturnedSampleInTheDatasetExactlyOnceAcrossKillNineOfThePublishingJvm() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            stack.createDataset("jq", "v1", "queued publisher crash test", "image:float32:3x8x8", "label:int64");
            Map<String, String> ingestSettings = new HashMap<>(PipelineSettings.ingest(endpoints, 200, 64L << 20, Duration.ofSeconds(1),
                    work.resolve("ingest-state")));
            ingestSettings.put(IngestConfig.DEDUPE_WINDOW_MS, "2000"); // a resend is caught by queue seq, not by the window
            try (IngestApp ingest = IngestApp.start(new HashMap<>(ingestSettings));
                 ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "jq-sink")))) {
                Path queue = work.resolve("crash-queue");
                Path journal = Files.createDirectories(work.resolve("crash-journal"));
                SplittableRandom random = new SplittableRandom(18);
                for (int kill = 0; kill < KILLS; kill++) {
                    Process child = publisher(endpoints, queue, journal).start();
                    awaitReady(child, journal);
                    awaitReturns(child, journal, 3); // each run adds sends that returned, however slow its start and fsyncs
                    Thread.sleep(random.nextLong(100, 2500)); // among sends, syncs, rolls and deliveries
                    assertThat(child.isAlive()).as("the publisher died by itself; see %s", work.resolve("children.log")).isTrue();
                    child.destroyForcibly(); // SIGKILL
                    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                }
                List<Long> attempts = numbers(journal.resolve("attempts.log"));
                Set<Long> returned = new HashSet<>(numbers(journal.resolve("returned.log")));
                long last = attempts.stream().mapToLong(Long::longValue).max().orElse(-1) + 21;
                Process finalRun = publisher(endpoints, queue, journal, Long.toString(last)).start();
                assertThat(finalRun.waitFor(240, TimeUnit.SECONDS)).as("the last run delivers its queue").isTrue();
                assertThat(finalRun.exitValue()).as("exit of the last run; see %s", work.resolve("children.log")).isZero();
                returned.addAll(numbers(journal.resolve("returned.log")));
                attempts = numbers(journal.resolve("attempts.log"));
                assertThat(returned.size()).as("sends that returned, over all runs").isGreaterThan(KILLS * 5);

                CommitLog log = new CommitLog(stack.store(), "jq", "v1", Clock.systemUTC());
                Snapshot snapshot = awaitStable(log, returned.size());
                VerificationReport verified = new SnapshotVerifier(stack.store(), Files.createDirectories(work.resolve("verify")))
                        .verify(snapshot);
                assertThat(verified.duplicateIds()).as("samples in the dataset more than once").isEmpty();
                assertThat(verified.problems()).isEmpty();
                Set<String> returnedIds = new HashSet<>();
                returned.forEach(n -> returnedIds.add(QueuedPublisherChild.SAMPLES.sampleId(n)));
                Set<String> attemptedIds = new HashSet<>();
                attempts.forEach(n -> attemptedIds.add(QueuedPublisherChild.SAMPLES.sampleId(n)));
                assertThat(verified.sampleIds()).as("every sample whose send returned").containsAll(returnedIds);
                assertThat(attemptedIds).as("nothing that was never sent").containsAll(verified.sampleIds());
                assertRowsWhole(stack, snapshot);
                System.out.printf("%d kills; %d sends returned, %d cut short by a kill; dataset: %d samples, each once%n", KILLS,
                        returned.size(), attempts.size() - returned.size(), verified.sampleIds().size());
            }
        }
    }

    private ProcessBuilder publisher(StackEndpoints endpoints, Path queue, Path journal, String... limit) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), QueuedPublisherChild.class.getName(), endpoints.bootstrapServers(),
                endpoints.registryUrl(), queue.toString(), journal.toString()));
        command.addAll(List.of(limit));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("children.log").toFile()));
    }

    private void awaitReady(Process child, Path journal) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.exists(journal.resolve("ready-" + child.pid()))) {
            assertThat(child.isAlive()).as("the publisher exited at start; see %s", work.resolve("children.log")).isTrue();
            assertThat(System.nanoTime()).as("the publisher never opened its queue").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** Waits (at most 60 s) until {@code count} more sends have returned than before this call. */
    private void awaitReturns(Process child, Path journal, int count) throws Exception {
        int before = numbers(journal.resolve("returned.log")).size();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (numbers(journal.resolve("returned.log")).size() < before + count) {
            assertThat(child.isAlive()).as("the publisher died by itself; see %s", work.resolve("children.log")).isTrue();
            assertThat(System.nanoTime()).as("no send returned within 60 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** The latest snapshot once it holds at least {@code atLeast} samples and nothing new came for several seal ages. */
    private static Snapshot awaitStable(CommitLog log, long atLeast) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        long count = -1;
        long stableSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long now = log.latest().sampleCount();
            if (now != count) {
                count = now;
                stableSince = System.nanoTime();
            }
            if (count >= atLeast && System.nanoTime() - stableSince > TimeUnit.SECONDS.toNanos(8)) {
                return log.latest();
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the dataset holds " + count + " samples, at least " + atLeast + " expected");
    }

    /** Each row as it was sent (image, label, produced-at), read back through h5py: nothing half-present. */
    private void assertRowsWhole(TestStack stack, Snapshot snapshot) throws Exception {
        for (ShardEntry shard : snapshot.shards()) {
            Path file = work.resolve("shard.h5");
            Files.deleteIfExists(file);
            stack.store().download(shard.objectKey(), file);
            JsonNode h5 = PythonShardReader.read(file);
            for (int row = 0; row < shard.sampleCount(); row++) {
                String id = h5.get("sample_ids").get(row).asText();
                long n = Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
                float[] sent = QueuedPublisherChild.SAMPLES.image(n);
                JsonNode stored = h5.get("tensors").get("image").get("values").get(row);
                assertThat(stored.size()).isEqualTo(sent.length);
                for (int i = 0; i < sent.length; i++) {
                    assertThat((float) stored.get(i).asDouble()).as("%s image[%d]", id, i).isEqualTo(sent[i]);
                }
                assertThat(h5.get("tensors").get("label").get("values").get(row).get(0).asLong()).as("%s label", id)
                        .isEqualTo(QueuedPublisherChild.SAMPLES.label(n));
                assertThat(h5.get("produced_at").get(row).asLong()).isEqualTo(QueuedPublisherChild.producedAt(n).toEpochMilli());
            }
        }
    }

    private static List<Long> numbers(Path file) throws Exception {
        return Files.exists(file) ? Files.readAllLines(file).stream().filter(s -> !s.isBlank()).map(Long::parseLong).toList() : List.of();
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
