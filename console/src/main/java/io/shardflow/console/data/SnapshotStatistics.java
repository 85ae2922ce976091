package io.shardflow.console.data;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DatasetSpec;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Full-snapshot statistics, computed incrementally per shard: a request for a snapshot's statistics
 * merges what is known of its shards at once (memory, then {@link StatsStore} on disk) and queues the
 * shards not seen yet on one background thread, which downloads each (verified) and reads it once.
 * The page shows the progress and reloads until done. A shard is read once in the console's life
 * (and once per cache directory): the next snapshot of a growing dataset costs only its new shards.
 */
public final class SnapshotStatistics implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SnapshotStatistics.class);

    /** Merged statistics of the shards known so far, and how many of the snapshot's shards that is. */
    public record Progress(ShardStats merged, int shardsDone, int shardsTotal, Optional<String> lastError) {
        public boolean complete() {
            return shardsDone == shardsTotal;
        }
    }

    private final DatasetAccess access;
    private final StatsStore disk;
    private final ShardReader reader = new ShardReader();
    private final Cache<String, ShardStats> memory = Caffeine.newBuilder().maximumSize(200_000).build();
    /** Snapshots are immutable: a complete merge is kept and never recomputed. */
    private final Cache<String, Progress> complete = Caffeine.newBuilder().maximumSize(1000).build();
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "console-stats");
        t.setDaemon(true);
        return t;
    });
    private volatile String lastError;

    public SnapshotStatistics(DatasetAccess access, StatsStore disk) {
        this.access = access;
        this.disk = disk;
    }

    /** What is known of the snapshot now; queues the shards that are not known yet. */
    public Progress of(DatasetSpec spec, Snapshot snapshot) {
        String key = snapshot.dataset() + "/" + snapshot.version() + "@" + snapshot.snapshotId();
        Progress done = complete.getIfPresent(key);
        if (done != null) {
            return done;
        }
        Progress progress = merge(spec, snapshot);
        if (progress.complete()) {
            complete.put(key, progress);
        }
        return progress;
    }

    private Progress merge(DatasetSpec spec, Snapshot snapshot) {
        ShardStats merged = ShardStats.empty();
        int done = 0;
        for (ShardEntry shard : snapshot.shards()) {
            Optional<ShardStats> known = known(shard);
            if (known.isPresent()) {
                merged = merged.plus(known.get());
                done++;
            } else if (queued.add(shard.sha256())) {
                worker.submit(() -> computeQuietly(spec, shard));
            }
        }
        return new Progress(merged, done, snapshot.shards().size(), Optional.ofNullable(lastError));
    }

    /** One shard's statistics, computed now if they are not known (the shard page shows one shard). */
    public ShardStats of(DatasetSpec spec, ShardEntry shard) {
        return known(shard).orElseGet(() -> compute(spec, shard));
    }

    /** Without reading the shard: from memory or disk only. Paging with a filter uses it to skip shards. */
    public Optional<ShardStats> known(ShardEntry shard) {
        ShardStats inMemory = memory.getIfPresent(shard.sha256());
        if (inMemory != null) {
            return Optional.of(inMemory);
        }
        Optional<ShardStats> onDisk = disk.read(shard.sha256());
        onDisk.ifPresent(s -> memory.put(shard.sha256(), s));
        return onDisk;
    }

    private ShardStats compute(DatasetSpec spec, ShardEntry shard) {
        ShardStats stats = ShardStats.of(spec, reader.read(access.file(shard)));
        disk.write(shard.sha256(), stats);
        memory.put(shard.sha256(), stats);
        return stats;
    }

    private void computeQuietly(DatasetSpec spec, ShardEntry shard) {
        try {
            compute(spec, shard);
        } catch (RuntimeException e) {
            lastError = shard.shardId() + ": " + e.getMessage();
            log.warn("Cannot compute statistics of shard {}: {}", shard.shardId(), e.toString());
        } finally {
            queued.remove(shard.sha256());
        }
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
