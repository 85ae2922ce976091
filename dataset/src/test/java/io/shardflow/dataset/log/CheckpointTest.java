package io.shardflow.dataset.log;

import static io.shardflow.dataset.log.ShardEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.CountingObjectStore;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-02-03T04:05:06Z"), ZoneOffset.UTC);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final CheckpointCodec codec = new CheckpointCodec();
    private final SegmentCodec segments = new SegmentCodec();

    /** Commits {@code from..to} one shard each (lane 0, sequence = snapshot id) with offsets, interval as given. */
    private static void commitRange(CommitLog log, long from, long to) {
        for (long id = from; id <= to; id++) {
            CommitResult result = log.commit(List.of(entry((int) (id % 3), id)), "sink-" + (id % 2),
                    Map.of("samples-" + (id % 3), id * 10));
            assertThat(result.snapshotId()).isEqualTo(id);
        }
    }

    /** The log as read from its entries only, the reference every checkpoint must reproduce. */
    private CommitLog entriesOnly() {
        ForwardingObjectStore hidden = new ForwardingObjectStore(store) {
            @Override
            public List<String> list(String prefix, String startAfter, int maxKeys) {
                return prefix.endsWith("/checkpoints/") ? List.of() : delegate.list(prefix, startAfter, maxKeys);
            }
        };
        return new CommitLog(hidden, "d", "v1", CLOCK, 0);
    }

    @Test
    void shouldWriteIncrementalCheckpointsWhoseChainHoldsEachEntryOnce() {
        CommitLog log = new CommitLog(store, "d", "v1", CLOCK, 3);

        commitRange(log, 1, 21);

        CommitLog reference = entriesOnly();
        // 21 = 7 intervals = 13 in base 4: its chain is 21 (entries 19..21) -> 18 (16..18) -> 15 -> 12 (1..12)
        CheckpointSegment latest = segments.decode(store.get(DatasetLayout.checkpointKey("d", "v1", 21)).orElseThrow());
        assertThat(latest.base()).isEqualTo(18);
        assertThat(latest.entries()).extracting(CommitEntry::snapshotId).containsExactly(19L, 20L, 21L);
        CheckpointSegment eighteen = segments.decode(store.get(DatasetLayout.checkpointKey("d", "v1", 18)).orElseThrow());
        assertThat(eighteen.base()).isEqualTo(15);
        assertThat(eighteen.entries()).extracting(CommitEntry::snapshotId).containsExactly(16L, 17L, 18L);
        CheckpointSegment fifteen = segments.decode(store.get(DatasetLayout.checkpointKey("d", "v1", 15)).orElseThrow());
        assertThat(fifteen.base()).isEqualTo(12);
        CheckpointSegment twelve = segments.decode(store.get(DatasetLayout.checkpointKey("d", "v1", 12)).orElseThrow());
        assertThat(twelve.base()).isZero();
        assertThat(twelve.entries()).hasSize(12);
        assertThat(twelve.entries().get(4)).isEqualTo(reference.entry(5));
        CommitLogState loaded = new CheckpointStore(store, "d", "v1").load(21);
        assertThat(loaded.shardsOf(21)).isEqualTo(reference.snapshot(21).shards());
        assertThat(loaded.commits()).isEqualTo(reference.history());
        assertThat(loaded.latestOffsets()).isEqualTo(reference.latestSourceOffsets());
    }

    @Test
    void shouldKeepReadingVersionOneCheckpointsAndChainNewOnesToThem() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 0), 1, 10);
        CommitLog reference = entriesOnly();
        Checkpoint whole = new Checkpoint(1, "d", "v1", 10, reference.latestSourceOffsets(), reference.history(),
                reference.snapshot(10).shards());
        store.putIfAbsent(DatasetLayout.checkpointKey("d", "v1", 10), codec.encode(whole));

        commitRange(new CommitLog(store, "d", "v1", CLOCK, 10), 11, 20);

        CheckpointSegment twenty = segments.decode(store.get(DatasetLayout.checkpointKey("d", "v1", 20)).orElseThrow());
        assertThat(twenty.base()).isEqualTo(10);
        CountingObjectStore counting = new CountingObjectStore(store);
        Snapshot latest = new CommitLog(counting, "d", "v1", CLOCK).latest();
        assertThat(latest.shards()).isEqualTo(entriesOnly().latest().shards());
        // LIST, GET checkpoint 20, GET version-1 checkpoint 10, GET 21 (404)
        assertThat(counting.snapshot()).isEqualTo(Map.of("list", 1, "get", 3));
    }

    @Test
    void shouldOpenALongLogWithAHandfulOfRequests() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 10), 1, 1005);
        CountingObjectStore counting = new CountingObjectStore(store);

        Snapshot latest = new CommitLog(counting, "d", "v1", CLOCK).latest();

        assertThat(latest.snapshotId()).isEqualTo(1005);
        assertThat(latest.shards()).isEqualTo(entriesOnly().latest().shards());
        // LIST checkpoints (max-keys 1), GET checkpoints 1000, 960, 800, 640 (100 intervals = 1210 in base 4),
        // GET entries 1001..1005, GET 1006 (404)
        assertThat(counting.snapshot()).isEqualTo(Map.of("list", 1, "get", 10));
    }

    @Test
    void shouldOpenAnOldSnapshotFromTheNewestCheckpointBeforeIt() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 10), 1, 300);
        CountingObjectStore counting = new CountingObjectStore(store);
        CommitLog log = new CommitLog(counting, "d", "v1", CLOCK);

        Snapshot old = log.snapshot(257);

        assertThat(old.shards()).isEqualTo(entriesOnly().snapshot(257).shards());
        // checkpoints 250, 240, 200, 160 (25 intervals = 121 in base 4), then entries 251..257 only
        assertThat(counting.snapshot()).isEqualTo(Map.of("list", 1, "get", 11));
        assertThat(log.snapshot(3).shards()).containsExactly(entry(1, 1), entry(2, 2), entry(0, 3));
    }

    @Test
    void shouldReadAllEntriesOfALogWithoutCheckpoints() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 0), 1, 12);
        CountingObjectStore counting = new CountingObjectStore(store);

        assertThat(new CommitLog(counting, "d", "v1", CLOCK).latest().snapshotId()).isEqualTo(12);
        assertThat(counting.snapshot()).isEqualTo(Map.of("list", 2, "get", 12));
    }

    @Test
    void shouldCatchUpThroughACheckpointWhenFarBehind() {
        CommitLog writer = new CommitLog(store, "d", "v1", CLOCK, 10);
        commitRange(writer, 1, 5);
        CountingObjectStore counting = new CountingObjectStore(store);
        CommitLog reader = new CommitLog(counting, "d", "v1", CLOCK);
        assertThat(reader.latest().snapshotId()).isEqualTo(5);
        commitRange(writer, 6, 104);
        counting.reset();

        Snapshot latest = reader.latest();

        assertThat(latest.shards()).isEqualTo(entriesOnly().latest().shards());
        // GET 6, GET 7, HEAD 39 (far behind), LIST checkpoints, GET checkpoints 100, 90, 80 and 40 (10 intervals
        // = 22 in base 4), GET 101..104, GET 105 (404)
        assertThat(counting.snapshot()).isEqualTo(Map.of("get", 11, "head", 1, "list", 1));
        assertThat(reader.committedShard(entry(2, 5).shardId())).contains(entry(2, 5));
        assertThat(reader.latestSourceOffsets()).containsEntry("samples-2", 1040L);
    }

    @Test
    void shouldPollCheaplyWhenNothingIsNew() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 10), 1, 100);
        CountingObjectStore counting = new CountingObjectStore(store);
        CommitLog log = new CommitLog(counting, "d", "v1", CLOCK);
        Snapshot first = log.latest();
        counting.reset();

        Snapshot again = log.latest();

        assertThat(counting.snapshot()).as("one GET of the next entry, a 404").isEqualTo(Map.of("get", 1));
        assertThat(again).isEqualTo(first);
        assertThat(again.shards()).as("a shared view, not a copy").isInstanceOf(AppendOnlyList.View.class);
    }

    @Test
    void shouldOpenAgainFromTheCheckpointAfterAStoreErrorWhileOpening() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 10), 1, 25);
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger(1);
        CountingObjectStore counting = new CountingObjectStore(new ForwardingObjectStore(store) {
            @Override
            public List<String> list(String prefix, String startAfter, int maxKeys) {
                if (failures.getAndDecrement() > 0) {
                    throw new io.shardflow.dataset.store.ObjectStoreException("list", prefix, "connection reset");
                }
                return delegate.list(prefix, startAfter, maxKeys);
            }
        });
        CommitLog log = new CommitLog(counting, "d", "v1", CLOCK);

        org.assertj.core.api.Assertions.assertThatThrownBy(log::latest).hasMessageContaining("connection reset");
        counting.reset();

        assertThat(log.latest().shards()).isEqualTo(entriesOnly().latest().shards());
        assertThat(counting.snapshot()).as("checkpoints 20 and 10, entries 21..25, a 404")
                .isEqualTo(Map.of("list", 1, "get", 8));
    }

    @Test
    void shouldPollANewCommitWithTwoRequests() {
        CommitLog writer = new CommitLog(store, "d", "v1", CLOCK, 10);
        commitRange(writer, 1, 100);
        CountingObjectStore counting = new CountingObjectStore(store);
        CommitLog reader = new CommitLog(counting, "d", "v1", CLOCK);
        reader.latest();
        commitRange(writer, 101, 101);
        counting.reset();

        assertThat(reader.latest().snapshotId()).isEqualTo(101);
        assertThat(counting.snapshot()).as("GET 101, GET 102 (404)").isEqualTo(Map.of("get", 2));
    }

    @Test
    void shouldFallBackToLogEntriesWhenTheNewestCheckpointIsUnreadable() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 0), 1, 12);
        store.putIfAbsent(DatasetLayout.checkpointKey("d", "v1", 10), "not gzip".getBytes(StandardCharsets.UTF_8));

        Snapshot latest = new CommitLog(store, "d", "v1", CLOCK).latest();

        assertThat(latest.snapshotId()).isEqualTo(12);
        assertThat(latest.shards()).isEqualTo(entriesOnly().latest().shards());
    }

    @Test
    void shouldIgnoreACheckpointThatDescribesAnotherSnapshot() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 0), 1, 12);
        CommitLog reference = entriesOnly();
        Checkpoint five = new Checkpoint(1, "d", "v1", 5, Map.of(), reference.history().subList(0, 5),
                reference.snapshot(5).shards());
        store.putIfAbsent(DatasetLayout.checkpointKey("d", "v1", 10), codec.encode(five));

        assertThat(new CommitLog(store, "d", "v1", CLOCK).latest().shards()).isEqualTo(entriesOnly().latest().shards());
    }

    @Test
    void shouldAcceptACheckpointAnotherCommitterWroteFirst() {
        CommitLog log = new CommitLog(store, "d", "v1", CLOCK, 2);
        commitRange(log, 1, 1);
        // Another committer's checkpoint 2 lands between our entry 2 and our checkpoint 2.
        ForwardingObjectStore racing = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, byte[] bytes) {
                if (key.contains("/checkpoints/")) {
                    delegate.putIfAbsent(key, bytes.clone());
                }
                return delegate.putIfAbsent(key, bytes);
            }
        };
        CommitLog racer = new CommitLog(racing, "d", "v1", CLOCK, 2);

        assertThat(racer.commit(List.of(entry(0, 2)), "sink-0", Map.of()).snapshotId()).isEqualTo(2);

        assertThat(store.get(DatasetLayout.checkpointKey("d", "v1", 2))).isPresent();
        assertThat(new CommitLog(store, "d", "v1", CLOCK).latest().shards()).containsExactly(entry(1, 1), entry(0, 2));
    }

    @Test
    void shouldKeepTheCommitWhenTheCheckpointCannotBeWritten() {
        ForwardingObjectStore noCheckpoints = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, byte[] bytes) {
                if (key.contains("/checkpoints/")) {
                    throw new io.shardflow.dataset.store.ObjectStoreException("putIfAbsent", key, "injected");
                }
                return delegate.putIfAbsent(key, bytes);
            }
        };
        CommitLog log = new CommitLog(noCheckpoints, "d", "v1", CLOCK, 1);

        assertThat(log.commit(List.of(entry(0, 0)), "sink", Map.of()).snapshotId()).isEqualTo(1);
        assertThat(log.latest().snapshotId()).isEqualTo(1);
        assertThat(store.keys()).containsExactly(DatasetLayout.commitKey("d", "v1", 1));
    }

    @Test
    void shouldListHistoryAndAddedShardsFromACheckpoint() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 10), 1, 20);
        CountingObjectStore counting = new CountingObjectStore(store);
        CommitLog log = new CommitLog(counting, "d", "v1", CLOCK);

        List<CommitInfo> history = log.history();

        assertThat(history).hasSize(20).extracting(CommitInfo::snapshotId).startsWith(1L, 2L).endsWith(20L);
        assertThat(log.addedBy(7)).containsExactly(entry(1, 7));
        assertThat(counting.total()).as("LIST, checkpoints 20 and 10, a 404").isEqualTo(4);
    }
}
