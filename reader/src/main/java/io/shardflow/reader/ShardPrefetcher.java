package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.store.ObjectInfo;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Downloads one reader's next shards ahead of use into the {@link ShardCache}: at most
 * {@code prefetch + 1} shards pending (the one about to be read and the next ones of this worker's
 * order) and at most {@code prefetch} GETs in flight, on one pool of that many threads. A shard of
 * {@code rangeThreshold} bytes or more is fetched as ranged GETs of {@code rangeSize} bytes at once,
 * each written at its offset into one file, then verified and moved into the cache by a last task:
 * no pool thread ever waits for another task.
 *
 * <p>What is scheduled never changes what is read: {@link #get} returns exactly the shard asked
 * for, fetching it on the spot (ranges one after another) if it was not scheduled. Pending shards
 * are pinned in the cache so a small cache cannot evict them before they are read. Used by one
 * reader thread; not thread-safe.
 */
final class ShardPrefetcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ShardPrefetcher.class);
    private static final int COPY_BUFFER = 1 << 16;
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private final ShardCache cache;
    private final ObjectStore store;
    private final FetchOptions options;
    private final ExecutorService pool;
    private final Map<String, CompletableFuture<Path>> pending = new LinkedHashMap<>();
    private final Map<String, ShardEntry> pinned = new LinkedHashMap<>();

    ShardPrefetcher(ShardCache cache, ObjectStore store, FetchOptions options) {
        this.cache = cache;
        this.store = store;
        this.options = options;
        this.pool = options.prefetch() > 0 ? Executors.newFixedThreadPool(options.prefetch(), daemonThreads()) : null;
    }

    /** Starts fetching these shards, the one read next first, while fewer than {@code prefetch + 1} are pending. */
    void schedule(List<ShardEntry> shards) {
        if (pool == null) {
            return;
        }
        for (ShardEntry shard : shards) {
            if (pending.size() > options.prefetch()) {
                return;
            }
            if (!pending.containsKey(shard.shardId())) {
                pin(shard);
                pending.put(shard.shardId(), CompletableFuture.supplyAsync(() -> cache.cached(shard), pool)
                        .thenCompose(hit -> hit.map(CompletableFuture::completedFuture).orElseGet(() -> download(shard))));
            }
        }
    }

    /** Ids of the shards scheduled and not yet taken, in schedule order. */
    List<String> pendingShards() {
        return new ArrayList<>(pending.keySet());
    }

    /**
     * The cached, verified file of this shard, fetched now if it was not scheduled. It stays pinned
     * until {@link #release}, which the caller does once it has read the file.
     */
    Path get(ShardEntry shard) {
        CompletableFuture<Path> future = pending.remove(shard.shardId());
        if (future == null) {
            pin(shard);
            return fetchNow(shard);
        }
        try {
            return future.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** The caller is done with this shard's file: the cache may evict it again. */
    void release(ShardEntry shard) {
        if (pinned.remove(shard.shardId()) != null) {
            cache.unpin(shard);
        }
    }

    /**
     * Stops the downloads and waits a little for them to end, so that a closed reader leaves no
     * half-written file behind; one still stuck in its GET after that is removed when a cache next
     * opens the directory.
     */
    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
            try {
                if (!pool.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.warn("shard downloads still running {} s after close; their partial files are removed on the next open",
                            CLOSE_WAIT.toSeconds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        pending.clear();
        for (ShardEntry shard : pinned.values()) {
            cache.unpin(shard);
        }
        pinned.clear();
    }

    private void pin(ShardEntry shard) {
        if (pinned.putIfAbsent(shard.shardId(), shard) == null) {
            cache.pin(shard);
        }
    }

    private Path fetchNow(ShardEntry shard) {
        Optional<Path> hit = cache.cached(shard);
        if (hit.isPresent()) {
            return hit.get();
        }
        long[][] ranges = rangesOf(shard);
        if (ranges == null) {
            return cache.fetch(shard);
        }
        Path partial = createPartial(shard);
        try {
            for (long[] range : ranges) {
                copyRange(shard, partial, range);
            }
        } catch (RuntimeException e) {
            deleteQuietly(partial);
            throw e;
        }
        return cache.admit(shard, partial);
    }

    /** Runs in a pool thread after a cache miss; returns without waiting for the ranges it starts. */
    private CompletableFuture<Path> download(ShardEntry shard) {
        long[][] ranges;
        Path partial;
        try {
            ranges = rangesOf(shard);
            if (ranges == null) {
                return CompletableFuture.completedFuture(cache.fetch(shard));
            }
            partial = createPartial(shard);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<?>[] parts = new CompletableFuture<?>[ranges.length];
        for (int i = 0; i < ranges.length; i++) {
            long[] range = ranges[i];
            parts[i] = CompletableFuture.runAsync(() -> copyRange(shard, partial, range), pool);
        }
        return CompletableFuture.allOf(parts)
                .thenApplyAsync(done -> cache.admit(shard, partial), pool)
                .whenComplete((file, error) -> {
                    if (error != null) {
                        deleteQuietly(partial);
                    }
                });
    }

    /**
     * The ranges of a big shard, or null to fetch it in one GET: below the threshold, or when the
     * object is not the size the log gives (the whole download then reports what it is).
     */
    private long[][] rangesOf(ShardEntry shard) {
        long[][] ranges = options.ranges(shard.bytes());
        if (ranges.length == 1) {
            return null;
        }
        Optional<ObjectInfo> info = store.head(shard.objectKey());
        return info.isPresent() && info.get().size() == shard.bytes() ? ranges : null;
    }

    private Path createPartial(ShardEntry shard) {
        Path partial = cache.newPartialFile(shard);
        try {
            Files.createFile(partial);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + partial, e);
        }
        return partial;
    }

    /** Writes bytes {@code range[0] .. range[0] + range[1]} of the shard at the same offset of {@code partial}. */
    private void copyRange(ShardEntry shard, Path partial, long[] range) {
        try (InputStream in = store.getRange(shard.objectKey(), range[0], range[1]);
             FileChannel out = FileChannel.open(partial, StandardOpenOption.WRITE)) {
            byte[] buffer = new byte[COPY_BUFFER];
            long position = range[0];
            int n;
            while ((n = in.read(buffer)) > 0) {
                ByteBuffer chunk = ByteBuffer.wrap(buffer, 0, n);
                while (chunk.hasRemaining()) {
                    position += out.write(chunk, position);
                }
            }
            // A short range leaves zeros behind: the digest check in ShardCache.admit refuses the file.
        } catch (IOException e) {
            throw new UncheckedIOException("cannot download bytes " + range[0] + "+" + range[1] + " of shard "
                    + shard.shardId() + " into " + partial, e);
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // left for the next cache opening the directory to remove
        }
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "shardflow-prefetch-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
