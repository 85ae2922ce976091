package io.shardflow.sink;

import static io.shardflow.sink.ShardEvents.DATASET;
import static io.shardflow.sink.ShardEvents.VERSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.sink.commit.ShardCommitter;
import io.shardflow.sink.fault.CrashPoint;
import io.shardflow.sink.fault.CrashPoints;
import io.shardflow.sink.flow.Backpressure;
import io.shardflow.sink.spool.SpoolDirectory;
import io.shardflow.sink.write.Retrier;
import io.shardflow.sink.write.ShardBuilder;
import io.shardflow.sink.write.ShardUploader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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

    private static final String TOPIC = "shard-assignments";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);
    private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(8);

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
        Sink sink = new Sink(store);
        store.failWhen((op, key) -> op.equals("putIfAbsent"));
        sink.add(P0, 0, threeAndSeal(a));

        sink.worker.pollOnce();

        assertThat(sink.consumer.paused()).as("backpressure: every assigned partition paused").containsExactlyInAnyOrder(P0, P1);
        assertThat(sink.committed(P0)).as("held at the first record of the shard not in the log").isEqualTo(0);
        assertThat(sink.spools.fileCount()).as("the sealed shard stays spooled on disk").isEqualTo(1);
        assertThat(gauge(sink, "shardflow.sink.shards.pending")).isEqualTo(1);

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
            public PutOutcome putIfAbsent(String key, Path file) {
                puts.incrementAndGet();
                return super.putIfAbsent(key, file);
            }
        };
        Sink sink = new Sink(counting);
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
        Sink sink = new Sink(store);
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
        Sink sink = new Sink(store);
        store.failWhen((op, key) -> op.equals("putIfAbsent"));
        sink.add(P0, 0, threeAndSeal(a));
        sink.worker.pollOnce();
        assertThat(workFiles()).as("built, not uploaded").hasSize(1);

        sink.worker.onPartitionsRevoked(List.of(P0));
        sink.worker.pollOnce();

        assertThat(sink.spools.fileCount()).as("abandoned spool removed").isZero();
        assertThat(workFiles()).as("abandoned built file removed").isEmpty();
        assertThat(sink.consumer.paused()).as("nothing left to wait for").isEmpty();
        assertThat(gauge(sink, "shardflow.sink.shards.pending")).isZero();
    }

    @Test
    void shouldPauseAPartitionAssignedDuringAnOutage() {
        Sink sink = new Sink(store);
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
        Sink sink = new Sink(store, 10);
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
        Sink sink = new Sink(store);
        sink.consumer.failNextCommit(new TimeoutException("broker restarting"));
        sink.add(P0, 0, threeAndSeal(a));

        sink.worker.pollOnce();
        assertThat(sink.committed(P0)).isNull();

        sink.worker.pollOnce();
        assertThat(sink.committed(P0)).as("committed on the next round").isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(value = CrashPoint.class, names = {"MID_SPOOL", "BEFORE_UPLOAD", "AFTER_UPLOAD", "AFTER_COMMIT"})
    void shouldEndWithExactlyOneCommittedCopyWhateverWindowTheSinkCrashesIn(CrashPoint point) {
        Sink first = new Sink(store, Long.MAX_VALUE, crashingAt(point));
        first.add(P0, 0, threeAndSeal(a));

        assertThatThrownBy(first.worker::pollOnce).isInstanceOf(SimulatedCrash.class);
        // kill -9: no cleanup; a new process starts on the same spool directory from the committed offsets

        Sink second = new Sink(store, Long.MAX_VALUE, CrashPoints.NONE, first.committedOffsets());
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
        Sink zombie = new Sink("zombie", store, Long.MAX_VALUE, CrashPoints.NONE, Map.of());
        zombie.add(P0, 0, ShardEvents.assigned(a, 0, 1), ShardEvents.assigned(a, 1, 2), ShardEvents.assigned(a, 2, 3));
        zombie.worker.pollOnce();
        // The zombie is frozen past its session timeout; P0 moves to the owner, which commits A.
        Sink owner = new Sink("owner", store, Long.MAX_VALUE, CrashPoints.NONE, Map.of());
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
        assertThat(store.putCount() - putsBefore).as("the create-only PUT is refused (412) and checked").isEqualTo(1);
        assertThat(zombie.committed(P0)).as("the group refused the zombie's offset commit").isEqualTo(0);
        assertThat(owner.committed(P0)).isEqualTo(4);
    }

    private CrashPoints crashingAt(CrashPoint point) {
        return CrashPoints.of(point.id() + ":1", "", new SplittableRandom(7), new CrashPoints.Injector() {
            @Override
            public void halt(CrashPoint reached) {
                throw new SimulatedCrash(reached);
            }

            @Override
            public void freeze(CrashPoint reached) {
                throw new AssertionError("no freeze expected");
            }
        });
    }

    private double gauge(Sink sink, String name) {
        return sink.meters.get(name).gauge().value();
    }

    private Snapshot latest() {
        return new CommitLog(store, DATASET, VERSION, CLOCK).latest();
    }

    private List<Path> workFiles() throws IOException {
        try (var files = Files.list(tmp.resolve("sink").resolve("work"))) {
            return files.toList();
        }
    }

    private static byte[][] threeAndSeal(ShardId shard) {
        int base = (int) (shard.lane() * 100 + shard.sequence() * 10);
        return new byte[][] {ShardEvents.assigned(shard, 0, base + 1), ShardEvents.assigned(shard, 1, base + 2),
                ShardEvents.assigned(shard, 2, base + 3), ShardEvents.sealed(shard, 3)};
    }

    /** What the crash injector throws instead of halting the test JVM. */
    static final class SimulatedCrash extends RuntimeException {
        SimulatedCrash(CrashPoint point) {
            super("simulated crash at " + point.id());
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

    /** One sink instance with its own consumer, spool and work directories, and a clock the test moves. */
    private final class Sink {

        final FlakyConsumer consumer = new FlakyConsumer();
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final SpoolDirectory spools;
        final SinkWorker worker;

        Sink(ObjectStore target) {
            this(target, Long.MAX_VALUE);
        }

        Sink(ObjectStore target, long spoolLimit) {
            this(target, spoolLimit, CrashPoints.NONE);
        }

        Sink(ObjectStore target, long spoolLimit, CrashPoints crashPoints) {
            this(target, spoolLimit, crashPoints, Map.of());
        }

        Sink(ObjectStore target, long spoolLimit, CrashPoints crashPoints, Map<TopicPartition, OffsetAndMetadata> resumeFrom) {
            this("sink", target, spoolLimit, crashPoints, resumeFrom);
        }

        /** @param name instances on one machine have their own spool and work directories */
        Sink(String name, ObjectStore target, long spoolLimit, CrashPoints crashPoints,
             Map<TopicPartition, OffsetAndMetadata> resumeFrom) {
            consumer.assign(List.of(P0, P1));
            consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
            if (!resumeFrom.isEmpty()) {
                consumer.commitSync(resumeFrom);
            }
            spools = SpoolDirectory.open(tmp.resolve(name).resolve("spool"));
            Path work = tmp.resolve(name).resolve("work");
            try {
                Files.createDirectories(work);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            Retrier retrier = new Retrier(2, Duration.ofMillis(1), Duration.ofMillis(5), d -> { });
            Backpressure backpressure = new Backpressure(FIRST_BACKOFF, MAX_BACKOFF, spoolLimit, nanos::get, new SplittableRandom(3));
            worker = new SinkWorker(consumer, TOPIC, Duration.ofMillis(10), spools,
                    new ShardBuilder(new ShardWriter(), work), new ShardUploader(target, retrier, work),
                    new ShardCommitter(target, CLOCK, retrier, "sink-test"), new SinkMetrics(meters), backpressure,
                    crashPoints);
        }

        void add(TopicPartition partition, long firstOffset, byte[]... values) {
            for (int i = 0; i < values.length; i++) {
                ShardEvent event = ShardEventCodec.decode(values[i]);
                ShardId shard = new ShardId(event.getDataset(), event.getVersion(), event.getLane(), event.getSequence());
                consumer.addRecord(new ConsumerRecord<>(partition.topic(), partition.partition(), firstOffset + i,
                        ShardEvents.key(shard), values[i]));
            }
        }

        Long committed(TopicPartition partition) {
            OffsetAndMetadata offset = consumer.committed(Set.of(partition)).get(partition);
            return offset == null ? null : offset.offset();
        }

        Map<TopicPartition, OffsetAndMetadata> committedOffsets() {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            consumer.committed(Set.of(P0, P1)).forEach((tp, offset) -> {
                if (offset != null) {
                    offsets.put(tp, offset);
                }
            });
            return offsets;
        }
    }
}
