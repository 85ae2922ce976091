package io.shardflow.dataset.log;

import static io.shardflow.dataset.log.ShardEntries.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Several committers (separate CommitLog instances, as in separate processes) on one store. */
class CommitLogRaceTest {

    private static final int COMMITTERS = 4;
    private static final int ROUNDS = 40;

    @Test
    void shouldNeitherLoseNorDuplicateShardsWhenCommittersRace() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        CyclicBarrier barrier = new CyclicBarrier(COMMITTERS);
        ExecutorService pool = Executors.newFixedThreadPool(COMMITTERS);
        List<Future<List<CommitResult>>> futures = new ArrayList<>();
        for (int c = 0; c < COMMITTERS; c++) {
            int committer = c;
            futures.add(pool.submit(() -> {
                CommitLog log = new CommitLog(store, "d", "v1", Clock.systemUTC());
                List<CommitResult> results = new ArrayList<>();
                for (int round = 0; round < ROUNDS; round++) {
                    barrier.await();
                    // Each round: one shard only this committer has, and one every committer offers
                    // (a replica replaying the same lane after a rebalance).
                    results.add(log.commit(List.of(entry(committer + 1, round), entry(0, round)), "sink-" + committer,
                            Map.of("samples-" + committer, (long) round)));
                }
                return results;
            }));
        }
        List<CommitResult> all = new ArrayList<>();
        for (Future<List<CommitResult>> f : futures) {
            all.addAll(f.get());
        }
        pool.shutdown();

        Snapshot latest = new CommitLog(store, "d", "v1", Clock.systemUTC()).latest();
        Set<ShardEntry> expected = new HashSet<>();
        for (int round = 0; round < ROUNDS; round++) {
            expected.add(entry(0, round));
            for (int c = 0; c < COMMITTERS; c++) {
                expected.add(entry(c + 1, round));
            }
        }
        assertThat(latest.shards()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
        assertThat(store.keys()).filteredOn(k -> k.contains("/log/")).containsExactlyElementsOf(LongStream.rangeClosed(1, latest.snapshotId())
                .mapToObj(id -> DatasetLayout.commitKey("d", "v1", id)).toList());
        // Whoever committed snapshot 10k wrote checkpoint 10k, and it says what the entries say.
        CheckpointStore checkpoints = new CheckpointStore(store, "d", "v1");
        for (long id = CommitLog.DEFAULT_CHECKPOINT_INTERVAL; id <= latest.snapshotId(); id += CommitLog.DEFAULT_CHECKPOINT_INTERVAL) {
            CommitLogState loaded = checkpoints.load(id);
            assertThat(loaded.latestId()).isEqualTo(id);
            assertThat(loaded.shardsOf(id)).isEqualTo(latest.shards().subList(0, loaded.shardsOf(id).size()));
        }
        // Each shard was reported committed by exactly one call.
        assertThat(all.stream().flatMap(r -> r.committed().stream()).toList())
                .doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
        // Every commit call ended with its shards in some snapshot no later than the latest.
        assertThat(all).allSatisfy(r -> assertThat(r.snapshotId()).isBetween(1L, latest.snapshotId()));
    }
}
