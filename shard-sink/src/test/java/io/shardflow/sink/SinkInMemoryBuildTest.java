package io.shardflow.sink;

import static io.shardflow.sink.ShardEvents.DATASET;
import static io.shardflow.sink.ShardEvents.VERSION;
import static io.shardflow.sink.SinkHarness.CLOCK;
import static io.shardflow.sink.SinkHarness.MAX_BACKOFF;
import static io.shardflow.sink.SinkHarness.P0;
import static io.shardflow.sink.SinkHarness.P1;
import static io.shardflow.sink.SinkHarness.threeAndSeal;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.shard.StreamingShardWriter;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import io.shardflow.sink.write.MemoryBudget;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink building shards in memory (the HDF5 writer with a memory budget, as the app runs): the
 * same objects and log as on disk, nothing left in the work directory, and an object store that is
 * down makes the built shards wait on disk rather than in memory.
 */
class SinkInMemoryBuildTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final AtomicLong nanos = new AtomicLong();
    private final ShardId a = ShardEvents.shard(0, 0);
    private final ShardId b = ShardEvents.shard(1, 0);

    @BeforeEach
    void createDataset() {
        new DatasetCatalog(store).create(ShardEvents.spec());
    }

    @Test
    void shouldUploadShardsFromMemoryWithTheBytesTheDiskBuildWouldHaveLeavingNoFile() throws Exception {
        AtomicInteger fromMemory = new AtomicInteger();
        ObjectStore watching = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, ByteBuffer bytes, String sha256Hex) {
                fromMemory.incrementAndGet();
                return super.putIfAbsent(key, bytes, sha256Hex);
            }
        };
        MemoryBudget memory = new MemoryBudget(64L << 20);
        var sink = sink("memory", watching, memory);
        sink.add(P0, threeAndSeal(a));
        sink.add(P1, threeAndSeal(b));

        sink.worker.pollOnce();

        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactlyInAnyOrder(a.toString(), b.toString());
        assertThat(fromMemory).as("both shards went up from memory").hasValue(2);
        assertThat(memory.reserved()).as("every reservation given back").isZero();
        assertThat(sink.workFiles()).isEmpty();

        // The same events built on disk by the same writer: the same bytes, so a replay on either path agrees.
        InMemoryObjectStore other = new InMemoryObjectStore();
        new DatasetCatalog(other).create(ShardEvents.spec());
        var onDisk = SinkHarness.builder(tmp, other).named("disk").backpressureOn(nanos::get)
                .building(new StreamingShardWriter(), new MemoryBudget(0)).build();
        onDisk.add(P0, threeAndSeal(a));
        onDisk.worker.pollOnce();
        ShardEntry disk = new CommitLog(other, DATASET, VERSION, CLOCK).latest().shards().get(0);
        ShardEntry memoryEntry = latest().shards().stream().filter(e -> e.shardId().equals(a.toString())).findFirst().orElseThrow();
        assertThat(memoryEntry.sha256()).isEqualTo(disk.sha256());
        assertThat(store.get(memoryEntry.objectKey())).get().isEqualTo(other.get(disk.objectKey()).orElseThrow());
    }

    @Test
    void shouldKeepABuiltShardOnDiskNotInMemoryWhileTheStoreIsDownAndCommitItFromThereLater() throws Exception {
        AtomicInteger builds = new AtomicInteger();
        MemoryBudget memory = new MemoryBudget(64L << 20);
        var sink = SinkHarness.builder(tmp, store).named("outage").backpressureOn(nanos::get)
                .building(new StreamingShardWriter(), memory)
                .samples((partition, offsets, each) -> {
                    builds.incrementAndGet();
                    ShardEvents.samplesTopic().read(partition, offsets, each);
                }).build();
        store.failWhen((op, key) -> op.equals("putIfAbsent") && key.contains("/shards/"));
        sink.add(P0, threeAndSeal(a));

        sink.worker.pollOnce();

        assertThat(sink.consumer.paused()).as("backpressure").contains(P0);
        assertThat(memory.reserved()).as("the failed upload's image left memory").isZero();
        List<Path> waiting = sink.workFiles();
        assertThat(waiting).hasSize(1);
        assertThat(new ShardReader().read(waiting.get(0)).rows()).hasSize(3);
        String waitingSha = ShardDigest.sha256(waiting.get(0));

        store.heal();
        nanos.addAndGet(MAX_BACKOFF.toNanos());
        sink.worker.pollOnce();

        ShardEntry entry = latest().shards().get(0);
        assertThat(entry.shardId()).isEqualTo(a.toString());
        assertThat(entry.sha256()).as("uploaded from the file it waited in").isEqualTo(waitingSha);
        assertThat(builds).as("not built again from Kafka").hasValue(1);
        assertThat(sink.workFiles()).isEmpty();
        assertThat(sink.committed(P0)).isEqualTo(4);
    }

    @Test
    void shouldBuildOnDiskWhatTheBudgetHasNoRoomFor() throws Exception {
        AtomicInteger fromMemory = new AtomicInteger();
        ObjectStore watching = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, ByteBuffer bytes, String sha256Hex) {
                fromMemory.incrementAndGet();
                return super.putIfAbsent(key, bytes, sha256Hex);
            }
        };
        var sink = sink("tight", watching, new MemoryBudget(1 << 20));
        sink.add(P0, threeAndSeal(a));

        sink.worker.pollOnce();

        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        assertThat(fromMemory).hasValue(0);
        assertThat(sink.workFiles()).isEmpty();
    }

    private SinkHarness<?> sink(String name, ObjectStore target, MemoryBudget memory) {
        return SinkHarness.builder(tmp, target).named(name).backpressureOn(nanos::get)
                .building(new StreamingShardWriter(), memory).build();
    }

    private io.shardflow.dataset.log.Snapshot latest() {
        return new CommitLog(store, DATASET, VERSION, CLOCK).latest();
    }
}
