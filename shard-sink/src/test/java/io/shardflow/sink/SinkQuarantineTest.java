package io.shardflow.sink;

import static io.shardflow.sink.SinkHarness.P0;
import static io.shardflow.sink.SinkHarness.threeAndSeal;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.quarantine.QuarantineLog;
import io.shardflow.dataset.quarantine.QuarantinedShard;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.schemas.Sample;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shard the writer refuses is quarantined, durably, and the sink moves on; an outage is not a reason to quarantine. */
class SinkQuarantineTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ShardId poisoned = ShardEvents.shard(0, 0);
    private final ShardId next = ShardEvents.shard(0, 1);

    @BeforeEach
    void createDataset() {
        new DatasetCatalog(store).create(ShardEvents.spec());
    }

    /** A shard whose second sample has a NUL in its id, which HDF5 fixed-length strings cannot hold. */
    private static List<byte[]> poisonedShard(ShardId shard) {
        Sample nul = ShardEvents.sample(2);
        nul.setSampleId("sample-\u0000-2");
        return List.of(ShardEvents.assigned(shard, 0, 1), ShardEvents.assigned(shard, 1, nul), ShardEvents.assigned(shard, 2, 3),
                ShardEvents.sealed(shard, 3));
    }

    @Test
    void shouldQuarantineAShardItCannotBuildThenCommitTheNextOneAndMoveTheOffsetPastBoth() {
        var sink = SinkHarness.builder(tmp, store).build();
        sink.add(P0, poisonedShard(poisoned));
        sink.add(P0, 4, threeAndSeal(next));

        sink.worker.pollOnce();

        List<QuarantinedShard> quarantined = new QuarantineLog(store).list(ShardEvents.DATASET, ShardEvents.VERSION);
        assertThat(quarantined).singleElement().satisfies(q -> {
            assertThat(q.shardId()).isEqualTo(poisoned.toString());
            assertThat(q.objectKey()).isEqualTo(DatasetLayout.shardKey(poisoned));
            assertThat(q.reason()).isEqualTo(QuarantinedShard.UNBUILDABLE);
            assertThat(q.detail()).startsWith("java.lang.IllegalArgumentException").contains("NUL");
            assertThat(q.sampleCount()).isEqualTo(3);
            assertThat(q.sourceOffsets()).containsKey(P0.toString());
        });
        assertThat(store.head(DatasetLayout.shardKey(poisoned))).as("no shard object for a quarantined shard").isEmpty();
        List<ShardEntry> committed = new CommitLog(store, ShardEvents.DATASET, ShardEvents.VERSION, SinkHarness.CLOCK)
                .latest().shards();
        assertThat(committed).extracting(ShardEntry::shardId).containsExactly(next.toString());
        assertThat(sink.committed(P0)).isEqualTo(8);
        assertThat(sink.spools.fileCount()).isZero();
        assertThat(sink.meters.get("shardflow.sink.shards.quarantined").counter().count()).isEqualTo(1);
    }

    @Test
    void shouldHoldTheOffsetUntilTheQuarantineRecordIsDurable() {
        store.failWhen((operation, key) -> operation.equals("putIfAbsent") && key.contains("/quarantine/"));
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        var sink = SinkHarness.builder(tmp, store).backpressureOn(nanos::get).build();
        sink.add(P0, poisonedShard(poisoned));

        sink.worker.pollOnce();

        assertThat(new QuarantineLog(store).list(ShardEvents.DATASET, ShardEvents.VERSION)).isEmpty();
        assertThat(sink.committed(P0)).as("the poisoned shard still holds the partition").isIn(null, 0L);
        assertThat(sink.gauge("shardflow.sink.shards.pending")).isEqualTo(1);

        store.heal();
        nanos.addAndGet(SinkHarness.MAX_BACKOFF.multipliedBy(2).toNanos());
        sink.worker.pollOnce();
        assertThat(new QuarantineLog(store).list(ShardEvents.DATASET, ShardEvents.VERSION)).hasSize(1);
        assertThat(sink.committed(P0)).isEqualTo(4);
    }

    @Test
    void shouldKeepTheFirstRecordWhenAReplayQuarantinesTheSameShardAgain() {
        var first = SinkHarness.builder(tmp, store).named("first").build();
        first.add(P0, poisonedShard(poisoned));
        first.worker.pollOnce();
        byte[] recorded = store.get(DatasetLayout.quarantineKey(poisoned)).orElseThrow();

        var replay = SinkHarness.builder(tmp, store).named("replay").build();
        replay.add(P0, poisonedShard(poisoned));
        replay.worker.pollOnce();

        assertThat(store.get(DatasetLayout.quarantineKey(poisoned))).hasValue(recorded);
        assertThat(replay.committed(P0)).isEqualTo(4);
    }
}
