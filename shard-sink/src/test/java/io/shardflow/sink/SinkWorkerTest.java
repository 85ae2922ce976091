package io.shardflow.sink;

import static io.shardflow.sink.ShardEvents.DATASET;
import static io.shardflow.sink.ShardEvents.VERSION;
import static io.shardflow.sink.SinkHarness.CLOCK;
import static io.shardflow.sink.SinkHarness.P0;
import static io.shardflow.sink.SinkHarness.P1;
import static io.shardflow.sink.SinkHarness.threeAndSeal;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.dataset.store.PutOutcome;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The poll loop end to end on a MockConsumer and an in-memory object store, with the real builder,
 * uploader and committer. A "crash" is a worker that is abandoned (or threw) without cleanup; the
 * next worker starts on the same spool directory and from the offsets the crashed one committed.
 */
class SinkWorkerTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ShardId a = ShardEvents.shard(0, 0);
    private final ShardId b = ShardEvents.shard(1, 0);

    @BeforeEach
    void createDataset() {
        new DatasetCatalog(store).create(ShardEvents.spec());
    }

    @Test
    void shouldCommitASealedShardAndThenTheOffsetPastItsSeal() throws IOException {
        var sink = newSink(store, Map.of());
        sink.add(P0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2), ShardEvents.assigned(a, 2, 3),
                ShardEvents.sealed(a, 3));

        sink.worker.pollOnce();

        Snapshot snapshot = latest();
        assertThat(snapshot.snapshotId()).isEqualTo(1);
        assertThat(snapshot.shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        ShardEntry entry = snapshot.shards().get(0);
        assertThat(entry.sampleCount()).isEqualTo(3);
        assertThat(entry.objectKey()).isEqualTo(DatasetLayout.shardKey(a));
        assertThat(rowsOf(entry)).containsExactly(
                ShardEvents.expectedRow(1), ShardEvents.expectedRow(2), ShardEvents.expectedRow(3));
        assertThat(sink.committed(P0)).isEqualTo(4);
        assertThat(sink.spools.fileCount()).as("spool removed once committed").isZero();
        assertThat(sink.workFiles()).as("built file removed once committed").isEmpty();
        assertThat(sink.meters.get("shardflow.sink.shards.committed").counter().count()).isEqualTo(1);
        assertThat(sink.meters.get("shardflow.sink.samples.committed").counter().count()).isEqualTo(3);
        assertThat(sink.meters.get("shardflow.sink.bytes.committed").counter().count()).isEqualTo(entry.bytes());
        assertThat(sink.meters.get("shardflow.sink.shards.open").gauge().value()).isZero();
    }

    @Test
    void shouldHoldTheOffsetAtAnOpenShardWhileAnInterleavedOneIsCommitted() {
        var sink = newSink(store, Map.of());
        sink.add(P0, interleavedUntilBSeals());

        sink.worker.pollOnce();

        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(b.toString());
        assertThat(sink.committed(P0)).as("A opened at offset 0 and is not committed").isEqualTo(0);
        assertThat(sink.spools.fileCount()).as("A is still spooled").isEqualTo(1);
        assertThat(sink.meters.get("shardflow.sink.shards.open").gauge().value()).isEqualTo(1);

        sink.add(P0, 5, ShardEvents.assigned(a, 1, 11), ShardEvents.assigned(a, 2, 12), ShardEvents.sealed(a, 3));
        sink.worker.pollOnce();

        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(b.toString(), a.toString());
        assertThat(sink.committed(P0)).isEqualTo(8);
    }

    @Test
    void shouldCommitNothingTwiceWhenReplayingAfterACrash() {
        var first = newSink(store, Map.of());
        first.add(P0, interleavedUntilBSeals());
        first.worker.pollOnce();
        Snapshot beforeCrash = latest();
        int putsBeforeCrash = store.putCount();
        // crash: the first worker is abandoned with A open and P0 committed at 0

        var second = newSink(store, first.committedOffsets());
        second.add(P0, interleavedUntilBSeals());
        second.add(P0, 5, ShardEvents.assigned(a, 1, 11), ShardEvents.assigned(a, 2, 12), ShardEvents.sealed(a, 3));
        second.worker.pollOnce();

        Snapshot after = latest();
        assertThat(after.snapshotId()).as("one new snapshot, for A only").isEqualTo(beforeCrash.snapshotId() + 1);
        assertThat(after.shards()).extracting(ShardEntry::shardId).containsExactly(b.toString(), a.toString());
        assertThat(after.shards().get(0)).isEqualTo(beforeCrash.shards().get(0));
        assertThat(rowsOf(after.shards().get(1))).containsExactly(
                ShardEvents.expectedRow(10), ShardEvents.expectedRow(11), ShardEvents.expectedRow(12));
        assertThat(store.putCount() - putsBeforeCrash)
                .as("A's object, its page index and one log entry; B is not uploaded again").isEqualTo(3);
        assertThat(logKeys()).hasSize(2);
        assertThat(second.committed(P0)).isEqualTo(8);
        assertThat(second.spools.fileCount()).isZero();
    }

    @Test
    void shouldEndWithOneCommittedCopyWhenCrashingBetweenUploadAndCommit() {
        store.failWhen((op, key) -> op.equals("putIfAbsent") && key.startsWith(DatasetLayout.commitPrefix(DATASET, VERSION)));
        var first = newSink(store, Map.of());
        first.add(P0, threeAndSeal(a));

        first.worker.pollOnce(); // the commit fails past the retrier's attempts: backpressure, not a dead worker

        assertThat(first.consumer.paused()).as("partitions paused while the shard is pending").contains(P0);
        assertThat(store.keys()).contains(DatasetLayout.shardKey(a));
        assertThat(logKeys()).isEmpty();
        assertThat(first.committed(P0)).as("no offset commit past a shard that is not in the log").isEqualTo(0);
        assertThat(first.spools.fileCount()).as("the failed shard is still spooled").isEqualTo(1);

        store.heal();
        var second = newSink(store, first.committedOffsets());
        assertThat(second.spools.fileCount()).as("the crashed worker's spool is abandoned and removed").isZero();
        second.add(P0, threeAndSeal(a));
        second.worker.pollOnce();

        Snapshot snapshot = latest();
        assertThat(snapshot.snapshotId()).isEqualTo(1);
        assertThat(snapshot.shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        assertThat(snapshot.shards().get(0).sha256()).isEqualTo(sha256Of(DatasetLayout.shardKey(a)));
        assertThat(logKeys()).hasSize(1);
        assertThat(second.committed(P0)).isEqualTo(4);
    }

    @Test
    void shouldTreatACommitWhoseResponseWasLostAsDone() {
        AtomicInteger lost = new AtomicInteger(1);
        ObjectStore lossy = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, byte[] bytes) {
                PutOutcome outcome = super.putIfAbsent(key, bytes);
                if (key.startsWith(DatasetLayout.commitPrefix(DATASET, VERSION)) && lost.getAndDecrement() > 0) {
                    throw new ObjectStoreException("putIfAbsent", key, "read timed out");
                }
                return outcome;
            }
        };
        var sink = newSink(lossy, Map.of());
        sink.add(P0, threeAndSeal(a));

        sink.worker.pollOnce();

        assertThat(logKeys()).hasSize(1);
        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        assertThat(sink.committed(P0)).isEqualTo(4);
    }

    @Test
    void shouldRecordWhereEveryPartitionStandsAfterTheCommit() {
        var sink = newSink(store, Map.of());
        sink.add(P1, ShardEvents.assigned(b, 0, 20)); // B stays open in P1
        sink.add(P0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2));
        sink.worker.pollOnce(); // consumer offsets committed: P0 -> 0, P1 -> 0
        sink.add(P0, 2, ShardEvents.assigned(a, 2, 3), ShardEvents.sealed(a, 3));

        sink.worker.pollOnce();

        Map<String, Long> recorded = new CommitLog(store, DATASET, VERSION, CLOCK).latestSourceOffsets();
        assertThat(recorded).containsExactlyInAnyOrderEntriesOf(Map.of(P0.toString(), 4L, P1.toString(), 0L));
        assertThat(sink.committed(P0)).isEqualTo(4);
        assertThat(sink.committed(P1)).isEqualTo(0);
    }

    @Test
    void shouldMoveEachPartitionOnItsOwn() {
        var sink = newSink(store, Map.of());
        sink.add(P0, threeAndSeal(a));
        sink.add(P1, ShardEvents.assigned(b, 0, 20), ShardEvents.assigned(b, 1, 21));

        sink.worker.pollOnce();

        assertThat(sink.committed(P0)).isEqualTo(4);
        assertThat(sink.committed(P1)).isEqualTo(0);
    }

    @Test
    void shouldCommitOneSnapshotPerDatasetVersion() {
        new DatasetCatalog(store).create(Specs.spec(DATASET, ShardEvents.OTHER_VERSION, TensorSpec.parse("image:float32:2x2"),
                TensorSpec.parse("label:int64")));
        ShardId other = new ShardId(DATASET, ShardEvents.OTHER_VERSION, 0, 0);
        ShardId a2 = ShardEvents.shard(0, 1);
        var sink = newSink(store, Map.of());
        List<byte[]> records = new ArrayList<>(threeAndSeal(a));
        records.addAll(threeAndSeal(other));
        records.addAll(threeAndSeal(a2));
        sink.add(P0, records);

        sink.worker.pollOnce();

        assertThat(latest().snapshotId()).as("a and a2 together in one commit").isEqualTo(1);
        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(a.toString(), a2.toString());
        Snapshot v2 = new CommitLog(store, DATASET, ShardEvents.OTHER_VERSION, CLOCK).latest();
        assertThat(v2.snapshotId()).isEqualTo(1);
        assertThat(v2.shards()).extracting(ShardEntry::shardId).containsExactly(other.toString());
        assertThat(sink.committed(P0)).isEqualTo(12);
        assertThat(sink.meters.get("shardflow.sink.snapshots").counter().count()).isEqualTo(2);
    }

    @Test
    void shouldSkipTheSamplesAndSealOfAShardAlreadyCommittedByAnotherInstance() {
        var other = newSink(store, Map.of());
        other.add(P0, threeAndSeal(a));
        other.worker.pollOnce();
        int puts = store.putCount();

        var sink = newSink(store, Map.of());
        sink.add(P0, threeAndSeal(a));
        sink.worker.pollOnce();

        assertThat(store.putCount()).as("nothing built, uploaded or committed").isEqualTo(puts);
        assertThat(latest().snapshotId()).isEqualTo(1);
        assertThat(sink.committed(P0)).isEqualTo(4);
        assertThat(sink.spools.fileCount()).isZero();
    }

    @Test
    void shouldPassOverTheTailOfAShardWhoseFirstSampleItNeverSaw() {
        // e.g. retention removed the head of a shard while the sink was down: it cannot be rebuilt
        var sink = newSink(store, Map.of());
        sink.add(P0, ShardEvents.assigned(a, 1, 2), ShardEvents.assigned(a, 2, 3), ShardEvents.sealed(a, 3));

        sink.worker.pollOnce();

        assertThat(logKeys()).isEmpty();
        assertThat(store.keys()).doesNotContain(DatasetLayout.shardKey(a));
        assertThat(sink.spools.fileCount()).isZero();
        assertThat(sink.committed(P0)).isEqualTo(3);
    }

    @Test
    void shouldDropTheOpenShardsOfARevokedPartitionAndRebuildThemWhenItComesBack() {
        var sink = newSink(store, Map.of());
        sink.add(P0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2));
        sink.add(P1, ShardEvents.assigned(b, 0, 20));
        sink.worker.pollOnce();

        sink.worker.onPartitionsRevoked(List.of(P0));

        assertThat(sink.spools.fileCount()).as("only B's spool is left").isEqualTo(1);
        assertThat(sink.committed(P0)).isEqualTo(0);

        // P0 comes back: the consumer resumes from the committed offset and A is read again from its start.
        sink.consumer.seek(P0, 0);
        sink.add(P0, threeAndSeal(a));
        sink.worker.pollOnce();

        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        assertThat(rowsOf(latest().shards().get(0))).hasSize(3);
        assertThat(sink.committed(P0)).isEqualTo(4);
        assertThat(sink.committed(P1)).isEqualTo(0);
    }

    @Test
    void shouldStopCleanlyOnWakeupAndDropItsSpools() throws Exception {
        var sink = newSink(store, Map.of());
        sink.consumer.unsubscribe();
        sink.consumer.schedulePollTask(() -> {
            sink.consumer.rebalance(List.of(P0));
            sink.consumer.updateBeginningOffsets(Map.of(P0, 0L));
            sink.add(P0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2));
        });
        sink.consumer.schedulePollTask(sink.worker::stop);

        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread runner = new Thread(sink.worker, "sink-worker-test");
        runner.setUncaughtExceptionHandler((t, e) -> failure.set(e));
        runner.start();
        runner.join(Duration.ofSeconds(10).toMillis());

        assertThat(runner.isAlive()).isFalse();
        assertThat(failure.get()).as("a requested stop is not an error").isNull();
        assertThat(sink.consumer.closed()).isTrue();
        assertThat(sink.spools.fileCount()).isZero();
        assertThat(logKeys()).isEmpty();
    }

    /** P0: A#0 at offset 0, then B's three samples and its seal at 1..4; A stays open. */
    private byte[][] interleavedUntilBSeals() {
        return new byte[][] {
                ShardEvents.assigned(a, 0, 10),
                ShardEvents.assigned(b, 0, 20), ShardEvents.assigned(b, 1, 21), ShardEvents.assigned(b, 2, 22),
                ShardEvents.sealed(b, 3)};
    }

    /** A sink instance in tmp/spool and tmp/work, starting from the group's committed offsets. */
    private SinkHarness<MockConsumer<byte[], byte[]>> newSink(ObjectStore target,
                                                          Map<TopicPartition, OffsetAndMetadata> resumeFrom) {
        return SinkHarness.builder(tmp, target).resumeFrom(resumeFrom).build();
    }

    private Snapshot latest() {
        return new CommitLog(store, DATASET, VERSION, CLOCK).latest();
    }

    private List<String> logKeys() {
        return store.list(DatasetLayout.commitPrefix(DATASET, VERSION), null, 1000);
    }

    private List<SampleRow> rowsOf(ShardEntry entry) {
        Path copy = tmp.resolve("check-" + entry.sequence() + "-" + entry.lane() + ".h5");
        store.download(entry.objectKey(), copy);
        assertThat(ShardDigest.sha256(copy)).as("stored object matches its entry").isEqualTo(entry.sha256());
        return new ShardReader().read(copy).rows();
    }

    private String sha256Of(String key) {
        Path copy = tmp.resolve("sha-check.h5");
        store.download(key, copy);
        return ShardDigest.sha256(copy);
    }
}
