package io.shardflow.sink;

import static io.shardflow.sink.ShardEvents.DATASET;
import static io.shardflow.sink.ShardEvents.VERSION;
import static io.shardflow.sink.SinkHarness.CLOCK;
import static io.shardflow.sink.SinkHarness.FIRST_BACKOFF;
import static io.shardflow.sink.SinkHarness.MAX_BACKOFF;
import static io.shardflow.sink.SinkHarness.P0;
import static io.shardflow.sink.SinkHarness.P1;
import static io.shardflow.sink.SinkHarness.threeAndSeal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The poll loop when things fail for a while: the object store is down (backpressure, not a dead
 * worker), the broker refuses an offset commit, the process crashes at each named window of the
 * commit protocol, and a zombie finishes a shard whose partition moved on.
 */
class SinkWorkerOutageTest {

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
    void shouldPauseKeepPollingAndResumeWhenTheStoreComesBackInsteadOfDying() {
        var sink = sink(store).build();
        store.failWhen((op, key) -> op.equals("putIfAbsent"));
        sink.add(P0, 0, threeAndSeal(a));

        sink.worker.pollOnce();

        assertThat(sink.consumer.paused()).as("backpressure: every assigned partition paused").containsExactlyInAnyOrder(P0, P1);
        assertThat(sink.committed(P0)).as("held at the first record of the shard not in the log").isEqualTo(0);
        assertThat(sink.spools.fileCount()).as("the sealed shard stays spooled on disk").isEqualTo(1);
        assertThat(sink.gauge("shardflow.sink.shards.pending")).isEqualTo(1);

        sink.add(P0, 4, ShardEvents.assigned(b, 0, 30));
        sink.worker.pollOnce();
        assertThat(sink.consumer.position(P0)).as("a paused partition delivers nothing new").isEqualTo(4);

        store.heal();
        nanos.addAndGet(MAX_BACKOFF.toNanos());
        sink.worker.pollOnce();

        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        assertThat(sink.committed(P0)).isEqualTo(4);
        assertThat(sink.consumer.paused()).as("resumed").isEmpty();
        assertThat(sink.meters.get("shardflow.sink.store.outages").counter().count()).isEqualTo(1);

        sink.worker.pollOnce();
        assertThat(sink.consumer.position(P0)).as("flowing again").isEqualTo(5);
    }

    @Test
    void shouldRetryThePendingWorkWithGrowingCappedBackoffNotOnEveryPoll() {
        AtomicInteger puts = new AtomicInteger();
        ObjectStore counting = new ForwardingObjectStore(store) {
            @Override
            public PutOutcome putIfAbsent(String key, Path file, String sha256Hex) {
                puts.incrementAndGet();
                return super.putIfAbsent(key, file, sha256Hex);
            }
        };
        var sink = sink(counting).build();
        store.failWhen((op, key) -> op.equals("putIfAbsent"));
        sink.add(P0, 0, threeAndSeal(a));
        sink.worker.pollOnce();
        int perAttempt = puts.get();
        assertThat(perAttempt).as("the retrier's bounded attempts").isEqualTo(2);

        for (int i = 0; i < 20; i++) {
            sink.worker.pollOnce(); // no time passes
        }
        assertThat(puts.get()).as("no retry before the backoff has passed").isEqualTo(perAttempt);

        List<Long> waits = new ArrayList<>();
        for (int attempt = 2; attempt <= 6; attempt++) {
            long waited = 0;
            while (puts.get() < attempt * perAttempt) {
                nanos.addAndGet(Duration.ofMillis(100).toNanos());
                waited += 100;
                sink.worker.pollOnce();
            }
            waits.add(waited);
        }
        assertThat(waits.get(0)).isBetween(FIRST_BACKOFF.toMillis() / 2, FIRST_BACKOFF.toMillis() + 100);
        assertThat(waits).allSatisfy(w -> assertThat(w).isLessThanOrEqualTo(MAX_BACKOFF.toMillis() + 100));
        assertThat(waits.get(4)).as("grew to the cap").isGreaterThanOrEqualTo(MAX_BACKOFF.toMillis() / 2);
        assertThat(sink.consumer.paused()).containsExactlyInAnyOrder(P0, P1);
    }

    @Test
    void shouldSpoolANewShardWhenTheReplayCheckCannotReachTheStore() {
        var sink = sink(store).build();
        store.failWhen((op, key) -> op.equals("list"));
        sink.add(P0, 0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2));

        sink.worker.pollOnce();

        assertThat(sink.spools.fileCount()).as("spooled although the log could not be read").isEqualTo(1);
        store.heal();
        sink.add(P0, 2, ShardEvents.assigned(a, 2, 3), ShardEvents.sealed(a, 3));
        sink.worker.pollOnce();

        assertThat(latest().shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        assertThat(sink.committed(P0)).isEqualTo(4);
    }

    @Test
    void shouldDropThePendingShardsOfARevokedPartitionAndEndTheOutage() throws IOException {
        var sink = sink(store).build();
        store.failWhen((op, key) -> op.equals("putIfAbsent"));
        sink.add(P0, 0, threeAndSeal(a));
        sink.worker.pollOnce();
        assertThat(sink.workFiles()).as("built, not uploaded").hasSize(1);

        sink.worker.onPartitionsRevoked(List.of(P0));
        sink.worker.pollOnce();

        assertThat(sink.spools.fileCount()).as("abandoned spool removed").isZero();
        assertThat(sink.workFiles()).as("abandoned built file removed").isEmpty();
        assertThat(sink.consumer.paused()).as("nothing left to wait for").isEmpty();
        assertThat(sink.gauge("shardflow.sink.shards.pending")).isZero();
    }

    @Test
    void shouldPauseAPartitionAssignedDuringAnOutage() {
        var sink = sink(store).build();
        sink.consumer.assign(List.of(P0));
        store.failWhen((op, key) -> op.equals("putIfAbsent"));
        sink.add(P0, 0, threeAndSeal(a));
        sink.worker.pollOnce();

        sink.consumer.assign(List.of(P0, P1));
        sink.worker.onPartitionsAssigned(List.of(P1));

        assertThat(sink.consumer.paused()).containsExactlyInAnyOrder(P0, P1);
    }

    @Test
    void shouldPausePartitionsWithoutOpenShardsWhileTheSpoolIsOverBudget() {
        var sink = sink(store).spoolLimit(10).build();
        sink.add(P0, 0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2));

        sink.worker.pollOnce();

        assertThat(sink.consumer.paused()).as("P0 must go on: only its seal frees the spool").containsExactly(P1);

        sink.add(P0, 2, ShardEvents.assigned(a, 2, 3), ShardEvents.sealed(a, 3));
        sink.worker.pollOnce();

        assertThat(sink.spools.bytes()).isZero();
        assertThat(sink.consumer.paused()).isEmpty();
    }

    @Test
    void shouldKeepGoingWhenTheBrokerTimesOutAnOffsetCommit() {
        var sink = sink(store).build();
        sink.consumer.failNextCommit(new TimeoutException("broker restarting"));
        sink.add(P0, 0, threeAndSeal(a));

        sink.worker.pollOnce();
        assertThat(sink.committed(P0)).isNull();

        sink.worker.pollOnce();
        assertThat(sink.committed(P0)).as("committed on the next round").isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(SinkHook.Step.class)
    void shouldEndWithExactlyOneCommittedCopyWhateverWindowTheSinkCrashesIn(SinkHook.Step step) {
        var first = sink(store).hook(crashingAt(step)).build();
        first.add(P0, 0, threeAndSeal(a));

        assertThatThrownBy(first.worker::pollOnce).isInstanceOf(SimulatedCrash.class);
        // kill -9: no cleanup; a new process starts on the same spool directory from the committed offsets

        var second = sink(store).resumeFrom(first.committedOffsets()).build();
        assertThat(second.spools.fileCount()).as("the crashed spool is abandoned and removed").isZero();
        second.add(P0, 0, threeAndSeal(a));
        second.worker.pollOnce();

        Snapshot snapshot = latest();
        assertThat(snapshot.shards()).extracting(ShardEntry::shardId).containsExactly(a.toString());
        assertThat(snapshot.sampleCount()).isEqualTo(3);
        assertThat(second.committed(P0)).isEqualTo(4);
    }

    @Test
    void shouldLeaveTheLogAsTheOwnerMadeItWhenAZombieFinishesAShardItNoLongerOwns() {
        var zombie = sink("zombie", store).build();
        zombie.add(P0, 0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2), ShardEvents.assigned(a, 2, 3));
        zombie.worker.pollOnce();
        // The zombie is frozen past its session timeout; P0 moves to the owner, which commits A.
        var owner = sink("owner", store).build();
        owner.add(P0, 0, threeAndSeal(a));
        owner.worker.pollOnce();
        Snapshot before = latest();
        int putsBefore = store.putCount();

        // SIGCONT: the zombie reads A's seal from the batch it had fetched, and its offset commit is refused.
        zombie.consumer.failNextCommit(new CommitFailedException("generation is stale"));
        zombie.add(P0, 3, ShardEvents.sealed(a, 3));
        zombie.worker.pollOnce();

        assertThat(latest()).as("no new entry, same shard, same object").isEqualTo(before);
        assertThat(store.keys().stream().filter(k -> k.startsWith(DatasetLayout.commitPrefix(DATASET, VERSION))))
                .hasSize(1);
        assertThat(store.putCount() - putsBefore)
                .as("the create-only PUTs of shard and page index are refused (412) and checked").isEqualTo(2);
        assertThat(zombie.committed(P0)).as("the group refused the zombie's offset commit").isEqualTo(0);
        assertThat(owner.committed(P0)).isEqualTo(4);
    }

    /** A hook that crashes the worker (an exception out of pollOnce) the first time it passes {@code step}. */
    private static SinkHook crashingAt(SinkHook.Step step) {
        return new SinkHook() {
            @Override
            public void passed(SinkHook.Step reached) {
                if (reached == step) {
                    throw new SimulatedCrash(reached);
                }
            }
        };
    }

    /** A sink on this test's clock, with a consumer whose commits can fail, in tmp/{name}. */
    private SinkHarness.Builder<FlakyConsumer> sink(String name, ObjectStore target) {
        return SinkHarness.builder(new FlakyConsumer(), tmp, target).named(name).backpressureOn(nanos::get);
    }

    private SinkHarness.Builder<FlakyConsumer> sink(ObjectStore target) {
        return sink("sink", target);
    }

    private Snapshot latest() {
        return new CommitLog(store, DATASET, VERSION, CLOCK).latest();
    }

    /** What the crash injector throws instead of halting the test JVM. */
    static final class SimulatedCrash extends RuntimeException {
        SimulatedCrash(SinkHook.Step step) {
            super("simulated crash after " + step);
        }
    }

    /** A MockConsumer whose next offset commit can be made to fail. */
    static final class FlakyConsumer extends MockConsumer<byte[], byte[]> {
        private RuntimeException nextCommitFailure;

        FlakyConsumer() {
            super("earliest");
        }

        void failNextCommit(RuntimeException failure) {
            nextCommitFailure = failure;
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            RuntimeException failure = nextCommitFailure;
            if (failure != null) {
                nextCommitFailure = null;
                throw failure;
            }
            super.commitSync(offsets);
        }
    }
}
