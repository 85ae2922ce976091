package io.shardflow.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.dataset.verify.SnapshotVerifier.VerificationReport;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.sink.config.SinkConfig;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * shard-sink's background compaction on the real stack: a quiet device makes ingest seal small
 * shards by age; the sink, with compaction on, merges them as replace entries while it keeps
 * committing. A reader pinned to the snapshot before the first merge still reads the small shards,
 * and the latest snapshot holds every published sample exactly once.
 */
class SinkBackgroundCompactionTest {

    private static final String DATASET = "quiet";
    private static final String VERSION = "v1";
    private static final int BURSTS = 8;
    private static final int PER_BURST = 5;

    @TempDir
    Path work;

    @Test
    void shouldMergeSmallShardsInTheBackgroundWhilePinnedReadersKeepTheirs() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            S3ObjectStore store = stack.store();
            stack.createDataset(DATASET, VERSION, "background compaction test", "image:float32:3x8x8", "label:int64");
            // Shards of up to 64 samples, sealed after 1 s: every burst of 5 ends up in small shards.
            IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 64, 1 << 20,
                    Duration.ofSeconds(1), work.resolve("ingest"))));
            Map<String, Object> sinkSettings = new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "it-sink"));
            sinkSettings.put(SinkConfig.COMPACTION_ENABLED, "true");
            sinkSettings.put(SinkConfig.COMPACTION_INTERVAL_MS, "2000");
            sinkSettings.put(SinkConfig.COMPACTION_TARGET_SAMPLES, "64");
            sinkSettings.put(SinkConfig.COMPACTION_MIN_SMALL_SHARDS, "3");
            ShardSinkApp sink = ShardSinkApp.start(sinkSettings);
            int total = BURSTS * PER_BURST;
            SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, "cam-quiet", 3, 8, 10, 7);
            CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
            try {
                try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(),
                        "samples", Map.of())) {
                    for (int burst = 0; burst < BURSTS; burst++) {
                        for (int i = 0; i < PER_BURST; i++) {
                            long n = (long) burst * PER_BURST + i;
                            publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(1_700_000_000_000L + n)))
                                    .get(30, TimeUnit.SECONDS);
                        }
                        Thread.sleep(2_500); // quiet: the lane's shard seals by age
                    }
                }
                await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1))
                        .until(() -> log.latest().sampleCount() >= total && firstReplace(log.view()).isPresent());
            } finally {
                sink.close();
                ingest.close();
            }

            Set<String> published = new HashSet<>();
            LongStream.range(0, total).forEach(n -> published.add(synthetic.sampleId(n)));
            SnapshotVerifier verifier = new SnapshotVerifier(store, Files.createDirectories(work.resolve("verify")));
            Snapshot latest = new CommitLog(store, DATASET, VERSION, Clock.systemUTC()).latest();
            VerificationReport now = verifier.verify(latest);
            assertThat(now.problems()).isEmpty();
            assertThat(now.duplicateIds()).isEmpty();
            assertThat(now.samples()).as("every sample exactly once").isEqualTo(total);
            assertThat(now.sampleIds()).isEqualTo(published);

            LogView view = log.view();
            long replace = firstReplace(view).getAsLong();
            Set<String> merged = new HashSet<>(log.entry(replace).removedShards());
            assertThat(merged.size()).isGreaterThanOrEqualTo(3);
            assertThat(log.entry(replace).committer()).isEqualTo("it-sink-compaction");
            Snapshot pinned = new CommitLog(store, DATASET, VERSION, Clock.systemUTC()).snapshot(replace - 1);
            assertThat(pinned.shards()).extracting(ShardEntry::shardId).containsAll(merged);
            VerificationReport before = verifier.verify(pinned);
            assertThat(before.problems()).as("the pinned snapshot still reads its small shards").isEmpty();
            assertThat(published).containsAll(before.sampleIds());
            assertThat(latest.shards()).extracting(ShardEntry::shardId).doesNotContainAnyElementsOf(merged);
        }
    }

    private static OptionalLong firstReplace(LogView view) {
        return view.history().stream().filter(c -> c.kind() == EntryKind.REPLACE).mapToLong(c -> c.snapshotId())
                .findFirst();
    }
}
