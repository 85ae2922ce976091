package io.shardflow.sink.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.dataset.lifecycle.ShardRewriter;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackgroundCompactionTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);
    private static final CompactionSettings SETTINGS = new CompactionSettings(true, Duration.ofMinutes(1), 10, 4);

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @Test
    void shouldMergeSmallShardsOnlyOnceEnoughWaitAndCountWhatItMerged() {
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", tmp, CLOCK);
        publisher.publish(1, 3, 2, 30);
        BackgroundCompaction compaction = compaction(store, publisher);

        compaction.runRound();
        assertThat(new CommitLog(store, "cams", "v1", CLOCK).latest().snapshotId()).as("two small shards wait").isEqualTo(1);

        publisher.publish(2, 4, 1);
        Snapshot before = new CommitLog(store, "cams", "v1", CLOCK).latest();
        compaction.runRound();

        CommitLog log = new CommitLog(store, "cams", "v1", CLOCK);
        assertThat(log.latest().snapshotId()).isEqualTo(3);
        assertThat(log.entry(3).kind()).isEqualTo(EntryKind.REPLACE);
        assertThat(log.entry(3).removedShards()).hasSize(4);
        assertThat(sampleIds(publisher, log.latest())).containsExactlyInAnyOrderElementsOf(sampleIds(publisher, before));
        assertThat(log.snapshot(2).shards()).isEqualTo(before.shards());
        assertThat(meters.counter("shardflow.sink.compactions").count()).isEqualTo(1);
        assertThat(meters.counter("shardflow.sink.compaction.shards.merged").count()).isEqualTo(4);
    }

    @Test
    void shouldPlanAgainWhenTheSinkCommitsFirstInsteadOfFailing() {
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", tmp, CLOCK);
        publisher.publish(1, 3, 2, 4, 1);
        ShardEntry fromSink = publisher.write(0, 2, 50);
        AtomicBoolean raced = new AtomicBoolean();
        ObjectStore racing = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, byte[] bytes) {
                if (key.contains("/log/") && raced.compareAndSet(false, true)) {
                    // The sink's commit lands between the compactor's plan and its append.
                    publisher.commit(List.of(fromSink));
                }
                return delegate.putIfAbsent(key, bytes);
            }
        };

        compaction(racing, publisher).runRound();

        CommitLog log = new CommitLog(store, "cams", "v1", CLOCK);
        assertThat(raced).isTrue();
        assertThat(log.latest().snapshotId()).isEqualTo(3);
        assertThat(log.entry(2).addedShards()).containsExactly(fromSink);
        assertThat(log.entry(3).kind()).isEqualTo(EntryKind.REPLACE);
        assertThat(log.latest().shards()).contains(fromSink).hasSize(2);
        assertThat(meters.counter("shardflow.sink.compaction.failures").count()).isZero();
    }

    @Test
    void shouldCountAFailedRoundAndLeaveTheLogAlone() {
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", tmp, CLOCK);
        publisher.publish(1, 3, 2, 4, 1);
        ForwardingObjectStore broken = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, Path file) {
                throw new io.shardflow.dataset.store.ObjectStoreException("put", key, "connection reset");
            }
        };

        compaction(broken, publisher).runRound();

        assertThat(new CommitLog(store, "cams", "v1", CLOCK).latest().snapshotId()).isEqualTo(1);
        assertThat(meters.counter("shardflow.sink.compaction.failures").count()).isEqualTo(1);
    }

    private BackgroundCompaction compaction(ObjectStore on, ShardPublisher publisher) {
        return new BackgroundCompaction(SETTINGS, on, () -> Set.of("cams/v1"), (d, v) -> publisher.spec(),
                new ShardWriter(), tmp, CLOCK, "sink-compaction", new CompactionMetrics(meters),
                Executors.newSingleThreadScheduledExecutor());
    }

    private List<String> sampleIds(ShardPublisher publisher, Snapshot snapshot) {
        ShardRewriter rewriter = new ShardRewriter(store, publisher.spec(), new ShardWriter(), tmp);
        List<String> ids = new ArrayList<>();
        snapshot.shards().forEach(shard -> rewriter.rows(shard).stream().map(SampleRow::sampleId).forEach(ids::add));
        return ids;
    }
}
