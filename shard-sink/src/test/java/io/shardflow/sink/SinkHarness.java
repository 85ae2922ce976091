package io.shardflow.sink;

import static io.shardflow.sink.ShardEvents.VERSION;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.sink.commit.ShardCommitter;
import io.shardflow.sink.quarantine.ShardQuarantine;
import io.shardflow.sink.flow.Backpressure;
import io.shardflow.sink.source.SampleSource;
import io.shardflow.sink.spool.SpoolDirectory;
import io.shardflow.dataset.retry.Retrier;
import io.shardflow.sink.write.MemoryBudget;
import io.shardflow.sink.write.ShardBuilder;
import io.shardflow.sink.write.ShardUploader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One sink instance on this machine for the poll-loop tests: a MockConsumer assigned to {@link #P0} and
 * {@link #P1}, a spool directory and a work directory under one folder, and a {@link SinkWorker} wired to
 * the real builder, uploader and committer. Built with {@link #builder(Path, ObjectStore)}; the consumer
 * can be any MockConsumer subclass, so a test keeps its own type (e.g. one whose commits can fail).
 */
final class SinkHarness<C extends MockConsumer<byte[], byte[]>> {

    static final String TOPIC = "shard-assignments";
    static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);
    /** Backoff bounds of the backpressure on a test clock, see {@link Builder#backpressureOn(LongSupplier)}. */
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(8);

    /** Builds and uploads shards in parallel as the sink does. */
    private static final ExecutorService BUILDERS = Executors.newFixedThreadPool(2, task -> {
        Thread thread = new Thread(task, "sink-test-build");
        thread.setDaemon(true);
        return thread;
    });

    final C consumer;
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final SpoolDirectory spools;
    final SinkWorker worker;
    private final Path work;

    private SinkHarness(Builder<C> options) {
        consumer = options.consumer;
        consumer.assign(List.of(P0, P1));
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        if (!options.resumeFrom.isEmpty()) {
            consumer.commitSync(options.resumeFrom);
        }
        spools = SpoolDirectory.open(options.dir.resolve("spool"));
        work = options.dir.resolve("work");
        try {
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Retrier retrier = new Retrier(2, Duration.ofMillis(1), Duration.ofMillis(5), d -> { });
        ShardBuilder builder = new ShardBuilder(options.writer, work, options.samples, options.buildMemory);
        ShardUploader uploader = new ShardUploader(options.target, retrier, work);
        ShardCommitter committer = new ShardCommitter(options.target, CLOCK, retrier, "sink-test");
        // Without a test clock: the worker's production defaults (1 s to 30 s backpressure, no spool limit, no hook).
        Backpressure backpressure = options.nanoTime == null
                ? Backpressure.system(Duration.ofSeconds(1), Duration.ofSeconds(30), Long.MAX_VALUE)
                : new Backpressure(FIRST_BACKOFF, MAX_BACKOFF, options.spoolLimit, options.nanoTime, new SplittableRandom(3));
        LongSupplier nanoTime = options.nanoTime == null ? System::nanoTime : options.nanoTime;
        worker = new SinkWorker(consumer, TOPIC, Duration.ofMillis(10), spools,
                new BackgroundFinisher(new ShardFinisher(builder, uploader, committer, options.hook,
                        new ShardQuarantine(options.target, retrier, CLOCK, "sink-test", meters), BUILDERS, 2), options.rounds,
                        options.maxShardsPerRound),
                new ReplayCheck(committer::isCommitted, backpressure::inOutage, nanoTime), backpressure,
                new SinkMetrics(meters), options.hook);
    }

    /** A sink on a plain {@code MockConsumer}, with its spool and work directories in {@code dir}. */
    static Builder<MockConsumer<byte[], byte[]>> builder(Path dir, ObjectStore target) {
        return builder(new MockConsumer<>("earliest"), dir, target);
    }

    /** A sink on the given (fresh, unassigned) consumer, with its spool and work directories in {@code dir}. */
    static <C extends MockConsumer<byte[], byte[]>> Builder<C> builder(C consumer, Path dir, ObjectStore target) {
        return new Builder<>(consumer, dir, target);
    }

    /** Three samples of the shard and its seal, with seeds derived from the shard so shards differ. */
    static List<byte[]> threeAndSeal(ShardId shard) {
        int base = (int) (shard.lane() * 100 + shard.sequence() * 10) + (shard.version().equals(VERSION) ? 0 : 1000);
        return List.of(ShardEvents.assigned(shard, 0, base + 1), ShardEvents.assigned(shard, 1, base + 2),
                ShardEvents.assigned(shard, 2, base + 3), ShardEvents.sealed(shard, 3));
    }

    /** Adds records to the partition from offset 0. */
    void add(TopicPartition partition, byte[]... values) {
        add(partition, 0, List.of(values));
    }

    void add(TopicPartition partition, List<byte[]> values) {
        add(partition, 0, values);
    }

    void add(TopicPartition partition, long firstOffset, byte[]... values) {
        add(partition, firstOffset, List.of(values));
    }

    void add(TopicPartition partition, long firstOffset, List<byte[]> values) {
        for (int i = 0; i < values.size(); i++) {
            byte[] value = values.get(i);
            consumer.addRecord(new ConsumerRecord<>(partition.topic(), partition.partition(), firstOffset + i,
                    ShardEvents.key(shardOf(value)), value));
        }
    }

    Long committed(TopicPartition partition) {
        OffsetAndMetadata offset = consumer.committed(Set.of(partition)).get(partition);
        return offset == null ? null : offset.offset();
    }

    /** The group's committed offsets, for a next instance to start from after a crash. */
    Map<TopicPartition, OffsetAndMetadata> committedOffsets() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        consumer.committed(Set.of(P0, P1)).forEach((tp, offset) -> {
            if (offset != null) {
                offsets.put(tp, offset);
            }
        });
        return offsets;
    }

    double gauge(String name) {
        return meters.get(name).gauge().value();
    }

    /** The files in this instance's work directory (built shards not yet cleaned up). */
    List<Path> workFiles() throws IOException {
        try (var files = Files.list(work)) {
            return files.toList();
        }
    }

    private static ShardId shardOf(byte[] value) {
        ShardEvent event = ShardEventCodec.decode(value);
        return new ShardId(event.getDataset(), event.getVersion(), event.getLane(), event.getSequence());
    }

    /** The variants: resuming from committed offsets, backpressure on a test clock, a spool limit, a hook. */
    static final class Builder<C extends MockConsumer<byte[], byte[]>> {
        private final C consumer;
        private final ObjectStore target;
        private Path dir;
        private Map<TopicPartition, OffsetAndMetadata> resumeFrom = Map.of();
        private LongSupplier nanoTime;
        private long spoolLimit = Long.MAX_VALUE;
        private SinkHook hook = SinkHook.NONE;
        private SampleSource samples = ShardEvents.samplesTopic();
        private Executor rounds = Runnable::run;
        private int maxShardsPerRound = Integer.MAX_VALUE;
        private ShardFileWriter writer = new ShardWriter();
        private MemoryBudget buildMemory = new MemoryBudget(0);

        private Builder(C consumer, Path dir, ObjectStore target) {
            this.consumer = consumer;
            this.dir = dir;
            this.target = target;
        }

        /** Instances on one machine have their own spool and work directories: {@code dir/name}. */
        /** The samples topic the sink reads rows from; by default every offset holds its seed's sample. */
        Builder<C> samples(SampleSource topic) {
            this.samples = topic;
            return this;
        }

        /** Shards written by {@code fileWriter}, in memory while {@code memory} has room (by default jHDF on disk). */
        Builder<C> building(ShardFileWriter fileWriter, MemoryBudget memory) {
            this.writer = fileWriter;
            this.buildMemory = memory;
            return this;
        }

        /** At most this many pending shards per finishing round (the app sets a few per build thread); unlimited by default. */
        Builder<C> maxShardsPerRound(int shards) {
            this.maxShardsPerRound = shards;
            return this;
        }

        /** Where finishing rounds run; by default inline, so each round ends within {@code pollOnce}. */
        Builder<C> roundsOn(Executor executor) {
            this.rounds = executor;
            return this;
        }

        Builder<C> named(String name) {
            dir = dir.resolve(name);
            return this;
        }

        /** The group's committed offsets the new instance starts from. */
        Builder<C> resumeFrom(Map<TopicPartition, OffsetAndMetadata> offsets) {
            resumeFrom = offsets;
            return this;
        }

        /**
         * Backpressure from {@link #FIRST_BACKOFF} to {@link #MAX_BACKOFF} on a clock the test moves, with fixed
         * jitter. Without it the worker runs with its own default backpressure and no hook.
         */
        Builder<C> backpressureOn(LongSupplier nanos) {
            nanoTime = nanos;
            return this;
        }

        /** Spool bytes over which partitions without open shards are paused; needs {@link #backpressureOn}. */
        Builder<C> spoolLimit(long bytes) {
            spoolLimit = bytes;
            return this;
        }

        /** Needs {@link #backpressureOn}. */
        Builder<C> hook(SinkHook sinkHook) {
            hook = sinkHook;
            return this;
        }

        SinkHarness<C> build() {
            if (nanoTime == null && (spoolLimit != Long.MAX_VALUE || hook != SinkHook.NONE)) {
                throw new IllegalStateException("a spool limit or a hook needs backpressureOn(a test clock)");
            }
            return new SinkHarness<>(this);
        }
    }
}
