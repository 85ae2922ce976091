package io.shardflow.dataset.log;

import static io.shardflow.dataset.log.ShardEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.StoredObject;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Checkpoint storage grows linearly with the log (dataset/FORMAT.md, "Checkpoints"): every entry is
 * in at most one checkpoint per level, and the chain a reader follows stays short.
 */
class CheckpointStorageTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-02-03T04:05:06Z"), ZoneOffset.UTC);
    /** Every level below the top holds at most (1 - 1/FANOUT) of the entries, the top all of them. */
    private static final double COPIES = (CheckpointStore.LEVELS - 1) * (1 - 1.0 / CheckpointStore.FANOUT) + 1;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final SegmentCodec segments = new SegmentCodec();

    @Test
    void shouldStoreAtMostAFixedNumberOfCopiesOfEachEntryInAllCheckpoints() {
        int commits = 2048;
        CommitLog log = new CommitLog(store, "d", "v1", CLOCK, 1);
        for (long id = 1; id <= commits; id++) {
            log.commit(List.of(entry((int) (id % 3), id)), "sink", Map.of("samples-0", id));
        }

        long storedEntries = 0;
        long storedBytes = 0;
        List<StoredObject> checkpoints = store.listObjects(DatasetLayout.checkpointPrefix("d", "v1"), null, 10_000);
        for (StoredObject checkpoint : checkpoints) {
            byte[] bytes = store.get(checkpoint.key()).orElseThrow();
            storedEntries += segments.decode(bytes).entries().size();
            storedBytes += bytes.length;
        }
        List<CommitEntry> entries = java.util.stream.LongStream.rangeClosed(1, commits).mapToObj(log::entry).toList();
        byte[] wholeLog = segments.encode(new CheckpointSegment("d", "v1", commits, 0, entries));
        byte[] oneEntry = segments.encode(new CheckpointSegment("d", "v1", 1, 0, entries.subList(0, 1)));

        assertThat(checkpoints).hasSize(commits);
        // Binary chains would hold 13,312 entries here (6.5 copies); this layout holds 4.75 at most.
        assertThat(storedEntries).isLessThanOrEqualTo((long) (COPIES * commits));
        // In bytes: the copies of the log, plus what one small object costs, per checkpoint.
        assertThat(storedBytes).isLessThanOrEqualTo((long) (COPIES * wholeLog.length) + (long) commits * oneEntry.length);
    }

    @Test
    void shouldKeepTheReadersChainShortWhateverTheLogLength() {
        CommitLog log = new CommitLog(store, "d", "v1", CLOCK, 2);
        for (long id = 1; id <= 1000; id++) {
            log.commit(List.of(entry(0, id)), "sink", Map.of());
        }
        CheckpointChains chains = new CheckpointChains(store, "d", "v1");
        long topSpan = (long) Math.pow(CheckpointStore.FANOUT, CheckpointStore.LEVELS - 1);
        for (long id = 2; id <= 1000; id += 2) {
            long j = id / 2;
            assertThat(chains.chain(id)).as("chain of checkpoint %d", id)
                    .hasSizeLessThanOrEqualTo((int) ((CheckpointStore.LEVELS - 1) * (CheckpointStore.FANOUT - 1)
                            + j / topSpan));
        }
        // 500 intervals = 13310 in base 4: one link per unit of each digit, lowest digit first
        assertThat(chains.chain(1000)).containsExactly(1000L, 992L, 960L, 928L, 896L, 768L, 640L, 512L);
    }

    @Test
    void shouldBuildOnTheNewestCheckpointBeforeAMissingBase() {
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 1), 1, 5);
        commitRange(new CommitLog(store, "d", "v1", CLOCK, 0), 6, 9);

        commitRange(new CommitLog(store, "d", "v1", CLOCK, 1), 10, 10);

        // 10 builds on 9, never written: the newest checkpoint before it is 5, so not a whole segment
        CheckpointSegment ten = segments.decode(store.get(DatasetLayout.checkpointKey("d", "v1", 10)).orElseThrow());
        assertThat(ten.base()).isEqualTo(5);
        assertThat(ten.entries()).extracting(CommitEntry::snapshotId).containsExactly(6L, 7L, 8L, 9L, 10L);
    }

    private static void commitRange(CommitLog log, long from, long to) {
        for (long id = from; id <= to; id++) {
            log.commit(List.of(entry(0, id)), "sink", Map.of());
        }
    }
}
