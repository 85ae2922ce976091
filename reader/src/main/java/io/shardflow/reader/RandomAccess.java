package io.shardflow.reader;

import io.jhdf.HdfFile;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.PageIndexCodec;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.reader.pages.PageCache;
import io.shardflow.reader.pages.PageFetchStats;
import io.shardflow.reader.pages.PagedShardChannel;
import io.shardflow.reader.pages.VerifiedPages;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples of one snapshot by index, for map-style datasets and samplers: sample {@code i} read with
 * ranged GETs of just the pages of its shard it needs, each verified against the shard's page
 * index (dataset/FORMAT.md, "Page index"; the same rules as Python's {@code ds[i]}).
 *
 * <p>Index {@code i} counts samples in snapshot order (the snapshot's shards in log order, each
 * shard's rows in file order), found by a binary search over the shards' cumulative counts. A
 * shard whose file is in the {@link ShardCache} is read from there; one whose entry names no page
 * index, or whose index is missing or does not match the entry (logged), is downloaded whole
 * through the cache (verified as every download is).
 *
 * <p>Thread-safe: calls take turns; {@link #getMany} opens and reads the shards it needs in parallel.
 */
public final class RandomAccess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RandomAccess.class);
    public static final long DEFAULT_PAGE_CACHE_BYTES = 256L << 20;
    public static final int DEFAULT_OPEN_SHARDS = 16;

    /** Where sample {@code i} is: its shard and its row there. */
    public record Location(ShardEntry shard, int row) {
    }

    /** A shard file open for rows; {@code pages} null when read from a local file. */
    private record OpenShard(HdfFile file, ShardRowAt rows, VerifiedPages pages) {

        SampleRow row(int i) {
            try {
                return rows.row(i);
            } catch (RuntimeException e) {
                throw pages == null ? e : pages.explain(e);
            }
        }
    }

    private final ObjectStore store;
    private final Snapshot snapshot;
    private final ShardCache cache;
    private final int openShards;
    private final long[] ends;
    private final PageCache pages;
    private final PageFetchStats stats = new PageFetchStats();
    private final LinkedHashMap<String, OpenShard> open = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<String, Optional<PageIndex>> indexes = new java.util.concurrent.ConcurrentHashMap<>();
    private final ExecutorService pool;
    /** Page 0 of shards being opened (by tasks of {@link #pool}, which must not wait on their own pool). */
    private final ExecutorService firstPages;

    public RandomAccess(ObjectStore store, Snapshot snapshot, ShardCache cache, long pageCacheBytes, int openShards,
                        int threads) {
        this.store = Objects.requireNonNull(store, "store");
        this.snapshot = Objects.requireNonNull(snapshot, "snapshot");
        this.cache = Objects.requireNonNull(cache, "cache");
        if (openShards < 1 || threads < 1) {
            throw new IllegalArgumentException("openShards and threads must be >= 1, got " + openShards + " and " + threads);
        }
        this.openShards = openShards;
        this.pages = new PageCache(pageCacheBytes);
        this.ends = new long[snapshot.shards().size()];
        long total = 0;
        for (int k = 0; k < ends.length; k++) {
            total += snapshot.shards().get(k).sampleCount();
            ends[k] = total;
        }
        this.pool = Executors.newFixedThreadPool(threads, daemon("shardflow-random-access"));
        this.firstPages = Executors.newFixedThreadPool(threads, daemon("shardflow-first-pages"));
    }

    /** With a 256 MiB page cache, 16 open shards and 8 threads. */
    public RandomAccess(ObjectStore store, Snapshot snapshot, ShardCache cache) {
        this(store, snapshot, cache, DEFAULT_PAGE_CACHE_BYTES, DEFAULT_OPEN_SHARDS, 8);
    }

    public long size() {
        return ends.length == 0 ? 0 : ends[ends.length - 1];
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public PageFetchStats stats() {
        return stats;
    }

    public Location locate(long index) {
        if (index < 0 || index >= size()) {
            throw new IndexOutOfBoundsException("sample index " + index + " is out of range for snapshot "
                    + snapshot.snapshotId() + " of " + snapshot.dataset() + "/" + snapshot.version() + " (" + size()
                    + " samples)");
        }
        int found = Arrays.binarySearch(ends, index + 1);
        int k = found >= 0 ? found : -found - 1; // the first shard whose end is past index
        return new Location(snapshot.shards().get(k), (int) (index - (k == 0 ? 0 : ends[k - 1])));
    }

    public ReadSample get(long index) {
        return getMany(index).get(0);
    }

    /** The samples at {@code indices}, in that order; the shards they need opened and read in parallel. */
    public synchronized List<ReadSample> getMany(long... indices) {
        Map<String, List<Integer>> byShard = new LinkedHashMap<>();
        Location[] located = new Location[indices.length];
        for (int k = 0; k < indices.length; k++) {
            located[k] = locate(indices[k]);
            byShard.computeIfAbsent(located[k].shard().shardId(), id -> new ArrayList<>()).add(k);
        }
        ReadSample[] out = new ReadSample[indices.length];
        Map<String, CompletableFuture<OpenShard>> work = new LinkedHashMap<>();
        for (List<Integer> positions : byShard.values()) {
            ShardEntry shard = located[positions.get(0)].shard();
            OpenShard known = open.get(shard.shardId());
            work.put(shard.shardId(), CompletableFuture.supplyAsync(() -> {
                OpenShard opened = known != null ? known : openShard(shard);
                for (int k : positions) {
                    out[k] = new ReadSample(shard.shardId(), located[k].row(), opened.row(located[k].row()));
                }
                return opened;
            }, pool));
        }
        try {
            CompletableFuture.allOf(work.values().toArray(CompletableFuture[]::new)).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        } finally {
            work.forEach((id, opened) -> {
                if (opened.isDone() && !opened.isCompletedExceptionally()) {
                    open.putIfAbsent(id, opened.join());
                }
            });
            closeBeyond(openShards);
        }
        return Arrays.asList(out);
    }

    @Override
    public synchronized void close() {
        closeBeyond(0);
        pool.shutdownNow();
        firstPages.shutdownNow();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private void closeBeyond(int keep) {
        Iterator<OpenShard> eldest = open.values().iterator();
        while (open.size() > keep && eldest.hasNext()) {
            eldest.next().file().close();
            eldest.remove();
        }
    }

    private OpenShard openShard(ShardEntry shard) {
        Optional<java.nio.file.Path> cached = cache.cached(shard);
        VerifiedPages shardPages = cached.isPresent() ? null : pagesOf(shard);
        HdfFile file;
        try {
            if (cached.isPresent()) {
                file = new HdfFile(cached.get());
            } else if (shardPages != null) {
                file = new HdfFile(new PagedShardChannel(shardPages), URI.create("s3:///" + shard.objectKey()));
            } else {
                stats.countWholeShard();
                file = new HdfFile(cache.fetch(shard));
            }
        } catch (RuntimeException e) {
            throw shardPages == null ? e : shardPages.explain(e);
        }
        try {
            return new OpenShard(file, new ShardRowAt(file, shard), shardPages);
        } catch (RuntimeException e) {
            file.close();
            throw shardPages == null ? e : shardPages.explain(e);
        }
    }

    /**
     * The shard's verified pages, page 0 (where HDF5 starts) fetched at the writers' page size in
     * parallel with the index; null to read the shard whole.
     */
    private VerifiedPages pagesOf(ShardEntry shard) {
        if (!shard.hasPageIndex()) {
            return null;
        }
        boolean known = indexes.containsKey(shard.shardId());
        CompletableFuture<byte[]> first = known ? null : CompletableFuture.supplyAsync(() -> VerifiedPages.readRange(store,
                shard, 0, (int) Math.min(PageIndex.DEFAULT_PAGE_SIZE, shard.bytes())), firstPages);
        Optional<PageIndex> index = indexes.computeIfAbsent(shard.shardId(), id -> loadIndex(shard));
        if (index.isEmpty()) {
            return null;
        }
        VerifiedPages shardPages = new VerifiedPages(store, shard, index.get(), pages, stats);
        if (first != null) {
            shardPages.accept(0, first.join());
        }
        return shardPages;
    }

    private Optional<PageIndex> loadIndex(ShardEntry shard) {
        String key = DatasetLayout.pageIndexKey(shard.objectKey());
        stats.countIndexGet();
        Optional<byte[]> bytes = store.get(key);
        if (bytes.isEmpty()) {
            log.warn("Shard {} names page index {}, which does not exist: reading the shard whole", shard.shardId(), key);
            return Optional.empty();
        }
        String sha = ShardFileDigest.sha256Hex(bytes.get(), 0, bytes.get().length);
        if (!sha.equals(shard.pageIndexSha256())) {
            log.warn("Page index {} has sha256 {}, the commit log says {}: reading shard {} whole", key, sha,
                    shard.pageIndexSha256(), shard.shardId());
            return Optional.empty();
        }
        try {
            PageIndex index = PageIndexCodec.decode(bytes.get(), key);
            if (index.shardBytes() != shard.bytes() || !index.shardSha256().equals(shard.sha256())) {
                throw new IllegalArgumentException("page index " + key + " describes another shard");
            }
            return Optional.of(index);
        } catch (IllegalArgumentException e) {
            log.warn("{}: reading shard {} whole", e.getMessage(), shard.shardId());
            return Optional.empty();
        }
    }
}
