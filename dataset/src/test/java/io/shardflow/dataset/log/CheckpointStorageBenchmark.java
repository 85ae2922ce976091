package io.shardflow.dataset.log;

import static io.shardflow.dataset.log.ShardEntries.entry;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.StoredObject;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Total checkpoint bytes per commit as the log grows (dataset/FORMAT.md, "Checkpoints"), one shard
 * per commit, on {@link InMemoryObjectStore}. Off by default (it writes 160,000 commits):
 * <pre>
 * mvn -B -o -pl dataset test -Dtest=CheckpointStorageBenchmark -Dshardflow.bench=true [-Dbench.interval=10]
 * </pre>
 * Prints one line per log length to the test's output file.
 */
@EnabledIfSystemProperty(named = "shardflow.bench", matches = "true")
class CheckpointStorageBenchmark {

    private static final int INTERVAL = Integer.getInteger("bench.interval", 10);

    @Test
    void shouldPrintCheckpointBytesPerCommitForGrowingLogs() {
        Clock clock = Clock.fixed(Instant.parse("2026-02-03T04:05:06Z"), ZoneOffset.UTC);
        InMemoryObjectStore store = new InMemoryObjectStore();
        CommitLog log = new CommitLog(store, "d", "v1", clock, INTERVAL);
        long committed = 0;
        for (int commits : new int[] {2_560, 10_240, 40_960, 163_840}) {
            for (; committed < commits; committed++) {
                log.commit(List.of(entry(0, committed + 1)), "sink", Map.of("samples-0", committed));
            }
            long bytes = 0;
            int count = 0;
            String cursor = null;
            List<StoredObject> page;
            do {
                page = store.listObjects(DatasetLayout.checkpointPrefix("d", "v1"), cursor, 1000);
                for (StoredObject object : page) {
                    bytes += object.size();
                    count++;
                    cursor = object.key();
                }
            } while (page.size() == 1000);
            int chain = new CheckpointChains(store, "d", "v1").chain(commits).size();
            System.out.printf("commits=%d interval=%d checkpoints=%d bytes=%d bytesPerCommit=%.1f chainOfLatest=%d%n",
                    commits, INTERVAL, count, bytes, bytes / (double) commits, chain);
        }
    }
}
