package io.shardflow.dataset.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CheckpointChains;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.CountingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dataset expire} collects the checkpoints no reader of a kept snapshot reads, and only those. */
class CheckpointCollectionTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();

    @Test
    void shouldDeleteSupersededCheckpointsAndStillOpenEveryKeptSnapshotFromItsCheckpoint() {
        CommitLog log = writeHistory(Duration.ofDays(-1), 60);
        Tags.create(log, "pinned", 23, "t");
        int before = checkpointIds().size();

        GarbageCollector.Result result = expireKeepingLast(log, 10);

        assertThat(result.deletedCheckpoints()).isNotEmpty();
        NavigableSet<Long> left = checkpointIds();
        // the expire entry is snapshot 62, which has a checkpoint of its own
        assertThat(left.size()).isEqualTo(before + 1 - result.deletedCheckpoints().size());
        CheckpointChains chains = new CheckpointChains(store, "cams", "v1");
        for (long kept : new long[] {23, 52, 55, 58, 60, 61, 62}) {
            Long newest = left.floor(kept);
            assertThat(newest).as("a checkpoint at or before snapshot %d", kept).isNotNull();
            assertThat(chains.chain(newest)).as("the chain of checkpoint %d is whole", newest).isNotEmpty();
            CountingObjectStore counting = new CountingObjectStore(store);
            new CommitLog(counting, "cams", "v1", CLOCK).snapshot(kept);
            // One LIST for the checkpoint, never a LIST of the log from its start
            assertThat(counting.count("list")).as("opening snapshot %d", kept).isEqualTo(1);
        }
        // Kept: 22's chain (22, 20, 18, 16, 8) and those of 52..62 (down through 50, 48, 40, 32); the rest went
        assertThat(left).doesNotContain(24L, 26L, 36L, 46L);
    }

    @Test
    void shouldKeepCheckpointsInsideTheSafetyWindow() {
        CommitLog log = writeHistory(Duration.ZERO, 30);

        GarbageCollector.Result result = expireKeepingLast(log, 2);

        assertThat(result.deletedCheckpoints()).isEmpty();
        assertThat(checkpointIds()).hasSize(15);
    }

    /** {@code commits} one-shard commits with a checkpoint every 2, stored {@code age} from now. */
    private CommitLog writeHistory(Duration age, int commits) {
        store.useClock(Clock.offset(CLOCK, age));
        ShardPublisher publisher = new ShardPublisher(store, "cams", "v1", tmp, CLOCK);
        CommitLog log = new CommitLog(store, "cams", "v1", CLOCK, 2);
        for (int sequence = 1; sequence <= commits; sequence++) {
            log.commit(List.of(publisher.write(0, sequence, 1)), "sink", Map.of());
        }
        return log;
    }

    private GarbageCollector.Result expireKeepingLast(CommitLog log, int last) {
        return new Expirer(log, new GarbageCollector(store, CLOCK), CLOCK, "t").expire("cams", "v1",
                new Expirer.Request(new RetentionPolicy(OptionalInt.of(last), OptionalInt.empty()), OptionalLong.empty(),
                        Duration.ofHours(1), false), line -> { }).collected();
    }

    private NavigableSet<Long> checkpointIds() {
        return new CheckpointChains(store, "cams", "v1").list().navigableKeySet();
    }
}
