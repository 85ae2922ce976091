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
import io.shardflow.sink.source.SourceRecordGoneException;
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

    /** The samples record a poisoned shard names at row 1: a NUL in its id, which HDF5 fixed-length strings cannot hold. */
    private static final long NUL_OFFSET = 2;

    private final FixtureSamplesTopic samples = new FixtureSamplesTopic().put(NUL_OFFSET, nulSample());

    private static Sample nulSample() {
        Sample nul = ShardEvents.sample(2);
        nul.setSampleId("sample-\u0000-2");
        return nul;
    }

    private static List<byte[]> poisonedShard(ShardId shard) {
        return List.of(ShardEvents.assigned(shard, 0, 1), ShardEvents.assigned(shard, 1, (int) NUL_OFFSET),
                ShardEvents.assigned(shard, 2, 3), ShardEvents.sealed(shard, 3));
    }

    @Test
    void shouldQuarantineAShardItCannotBuildThenCommitTheNextOneAndMoveTheOffsetPastBoth() {
        var sink = SinkHarness.builder(tmp, store).samples(samples).build();
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
        var sink = SinkHarness.builder(tmp, store).samples(samples).backpressureOn(nanos::get).build();
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
        var first = SinkHarness.builder(tmp, store).samples(samples).named("first").build();
        first.add(P0, poisonedShard(poisoned));
        first.worker.pollOnce();
        byte[] recorded = store.get(DatasetLayout.quarantineKey(poisoned)).orElseThrow();

        var replay = SinkHarness.builder(tmp, store).samples(samples).named("replay").build();
        replay.add(P0, poisonedShard(poisoned));
        replay.worker.pollOnce();

        assertThat(store.get(DatasetLayout.quarantineKey(poisoned))).hasValue(recorded);
        assertThat(replay.committed(P0)).isEqualTo(4);
    }

    @Test
    void shouldQuarantineAShardWhoseSamplesRecordIsGoneAndCountIt() {
        samples.delete(12); // retention took the record of row 1 of `next` before the sink read it
        var sink = SinkHarness.builder(tmp, store).samples(samples).build();
        sink.add(P0, threeAndSeal(next));
        sink.add(P0, 4, threeAndSeal(ShardEvents.shard(0, 2)));

        sink.worker.pollOnce();

        assertThat(new QuarantineLog(store).list(ShardEvents.DATASET, ShardEvents.VERSION)).singleElement().satisfies(q -> {
            assertThat(q.shardId()).isEqualTo(next.toString());
            assertThat(q.detail()).contains(SourceRecordGoneException.class.getSimpleName()).contains("[12]");
        });
        assertThat(new CommitLog(store, ShardEvents.DATASET, ShardEvents.VERSION, SinkHarness.CLOCK).latest().shards())
                .extracting(ShardEntry::shardId).containsExactly(ShardEvents.shard(0, 2).toString());
        assertThat(sink.committed(P0)).isEqualTo(8);
        assertThat(sink.meters.get("shardflow.sink.shards.source.gone").counter().count()).isEqualTo(1);
    }

    @Test
    void shouldRetryNotQuarantineWhileTheSamplesTopicIsUnreachable() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        samples.down(true);
        var sink = SinkHarness.builder(tmp, store).samples(samples).backpressureOn(nanos::get).build();
        sink.add(P0, threeAndSeal(next));

        sink.worker.pollOnce();
        assertThat(new QuarantineLog(store).list(ShardEvents.DATASET, ShardEvents.VERSION)).isEmpty();
        assertThat(sink.committed(P0)).isIn(null, 0L);
        assertThat(sink.gauge("shardflow.sink.shards.pending")).isEqualTo(1);

        samples.down(false);
        nanos.addAndGet(SinkHarness.MAX_BACKOFF.multipliedBy(2).toNanos());
        sink.worker.pollOnce();
        assertThat(new CommitLog(store, ShardEvents.DATASET, ShardEvents.VERSION, SinkHarness.CLOCK).latest().shards())
                .extracting(ShardEntry::shardId).containsExactly(next.toString());
        assertThat(sink.committed(P0)).isEqualTo(4);
    }
}
