package io.shardflow.sink.compaction;

import io.shardflow.dataset.lifecycle.Compactor;
import io.shardflow.dataset.lifecycle.ShardRewriter;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.ObjectStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardflow.sink.commit.ShardCommitter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * shard-sink's background compaction: every interval, for each dataset version the sink writes, the
 * same {@link Compactor} as {@code shardflow dataset compact} merges the small shards of the latest
 * snapshot, when there are enough of them, as one replace entry.
 *
 * <p>It races with the sink's own commits through the commit protocol (docs/ARCHITECTURE.md § Commit
 * protocol): the replace entry is appended create-only at the next id, and when a sink commit takes
 * that id first the compactor re-plans on the new log and tries again; the sink's new shards are left
 * as they are. A round that still fails (its inputs replaced meanwhile, contention, an S3 outage) is
 * logged and counted, and the next round starts over: merged shards have deterministic ids and bytes,
 * so objects an interrupted round uploaded are written again identically or collected by expire.
 * Readers pinned to earlier snapshots keep reading the small shards until an expire drops them.
 */
public final class BackgroundCompaction implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundCompaction.class);

    private final CompactionSettings settings;
    private final ObjectStore store;
    private final Supplier<Set<String>> versions;
    private final BiFunction<String, String, DatasetSpec> specs;
    private final ShardFileWriter writer;
    private final Path scratch;
    private final Clock clock;
    private final String committer;
    private final CompactionMetrics metrics;
    private final ScheduledExecutorService scheduler;
    private final Map<String, CommitLog> logs = new ConcurrentHashMap<>();

    /**
     * @param versions the dataset versions to look at, as {@code dataset/version}
     * @param specs    the spec of a dataset version
     */
    public BackgroundCompaction(CompactionSettings settings, ObjectStore store, Supplier<Set<String>> versions,
                                BiFunction<String, String, DatasetSpec> specs, ShardFileWriter writer, Path scratch,
                                Clock clock, String committer, CompactionMetrics metrics,
                                ScheduledExecutorService scheduler) {
        this.settings = settings;
        this.store = store;
        this.versions = versions;
        this.specs = specs;
        this.writer = writer;
        this.scratch = scratch;
        this.clock = clock;
        this.committer = committer;
        this.metrics = metrics;
        this.scheduler = scheduler;
    }

    /**
     * Starts the rounds when {@code settings} enable them, on one daemon thread, over the dataset
     * versions the sink's committer has seen; returns what stops them (nothing to stop when off).
     */
    public static AutoCloseable startIfEnabled(CompactionSettings settings, ObjectStore store, ShardCommitter committer,
                                               ShardFileWriter writer, Path scratch, String committerId,
                                               MeterRegistry meters) {
        if (!settings.enabled()) {
            return () -> { };
        }
        try {
            Files.createDirectories(scratch);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create compaction scratch directory " + scratch, e);
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "shard-sink-compaction");
            thread.setDaemon(true);
            return thread;
        });
        BackgroundCompaction compaction = new BackgroundCompaction(settings, store, committer::versionsSeen,
                committer::spec, writer, scratch, Clock.systemUTC(), committerId + "-compaction",
                new CompactionMetrics(meters), scheduler);
        compaction.start();
        return compaction;
    }

    /** Schedules the rounds, the first one interval from now. */
    public void start() {
        long every = settings.interval().toMillis();
        scheduler.scheduleWithFixedDelay(this::runRound, every, every, TimeUnit.MILLISECONDS);
        LOG.info("Background compaction every {} ms: merges into shards of >= {} samples once {} small shards wait",
                every, settings.targetSamples(), settings.minSmallShards());
    }

    /** One round over every dataset version; never throws (a failure waits for the next round). */
    public void runRound() {
        for (String key : versions.get()) {
            String[] parts = key.split("/", 2);
            try {
                compact(parts[0], parts[1]);
            } catch (RuntimeException e) {
                if (scheduler.isShutdown()) {
                    // Interrupted by close: what it uploaded is rewritten identically by a later round, or collected.
                    LOG.info("Background compaction of {} stopped by the sink's shutdown", key);
                    return;
                }
                metrics.failures.increment();
                LOG.warn("Background compaction of {} failed, trying again next round: {}", key, e.toString());
            }
        }
    }

    private void compact(String dataset, String version) {
        DatasetSpec spec = specs.apply(dataset, version);
        CommitLog log = logs.computeIfAbsent(dataset + "/" + version, k -> new CommitLog(store, dataset, version, clock));
        List<List<ShardEntry>> groups = Compactor.plan(log.latest().shards(), spec.fingerprint(), settings.targetSamples());
        int small = groups.stream().mapToInt(List::size).sum();
        if (small < settings.minSmallShards()) {
            LOG.debug("{}/{}: {} small shards to merge, waiting for {}", dataset, version, small,
                    settings.minSmallShards());
            return;
        }
        Compactor.Result result = new Compactor(log, new ShardRewriter(store, spec, writer, scratch), committer)
                .compact(spec.fingerprint(), settings.targetSamples(), line -> LOG.debug("{}/{}: {}", dataset, version, line));
        if (result.snapshotId().isPresent()) {
            metrics.compactions.increment();
            metrics.shardsMerged.increment(result.removed().size());
            LOG.info("Compacted {}/{} as snapshot {}: {} small shards into {} ({} samples)", dataset, version,
                    result.snapshotId().getAsLong(), result.removed().size(), result.added().size(), result.samples());
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
