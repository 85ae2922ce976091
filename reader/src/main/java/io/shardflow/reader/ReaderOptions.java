package io.shardflow.reader;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a {@link BatchLoader} or {@link DatasetReader} reads and how, by reading rules version 2
 * (docs/READING-RULES.md). Start from {@link #of} and refine with the {@code with...} methods;
 * every combination is checked when built. Every field but the cache and fetch settings changes
 * which samples come, and in which order.
 *
 * @param read                what is read: one dataset, or a {@link Mix} of several
 * @param seed                order seed, {@code 0..2^63-1}
 * @param epoch               the epoch read first, {@code 0..2^63-1}: same seed and epoch, same order
 * @param shuffleShards       shards in hash order (true) or log order
 * @param shuffleBlock        samples permuted together (0 or 1: none); a window over a few shards
 * @param dropLast            every rank takes {@code floor(R/N)} samples instead of {@code ceil(R/N)} with padding
 * @param rank                this process's rank, {@code 0 <= rank < worldSize}
 * @param workers             parallel batch producers ({@link BatchLoader}); 0 = the caller's thread
 * @param batchSize           samples per batch ({@link BatchLoader})
 * @param follow              each epoch's start re-pins every dataset to its newest snapshot
 * @param newOnly             with follow: each epoch reads only the shards appended since the previous one's
 * @param pollInterval        new-only: wait between looks for something new
 * @param followTimeout       new-only: give up waiting after this long (the epoch is then empty); null = never
 * @param cacheDir            local shard cache; null = a temporary directory removed on close
 * @param cacheMaxBytes       cache size limit (least recently used shards are evicted)
 * @param verifyCached        hash cached shards again on every use, not only after download
 * @param fetch               download-ahead and ranged GETs (speed and disk only, never the order)
 * @param resume              a state to go on from (its epoch, snapshots and count), or null
 * @param allowSnapshotChange resume over the snapshot this reader was opened at even when the state names another
 */
public record ReaderOptions(
        Mix read,
        long seed,
        long epoch,
        boolean shuffleShards,
        int shuffleBlock,
        boolean dropLast,
        int rank,
        int worldSize,
        int workers,
        int batchSize,
        boolean follow,
        boolean newOnly,
        Duration pollInterval,
        Duration followTimeout,
        Path cacheDir,
        long cacheMaxBytes,
        boolean verifyCached,
        FetchOptions fetch,
        ReadState resume,
        boolean allowSnapshotChange) {

    public static final long DEFAULT_CACHE_BYTES = 4L << 30;
    /** Samples permuted together by default: a window over a few shards, never the whole dataset. */
    public static final int DEFAULT_SHUFFLE_BLOCK = 8192;

    public ReaderOptions {
        Objects.requireNonNull(read, "read");
        if (seed < 0 || epoch < 0) {
            throw new IllegalArgumentException("seed and epoch must be in 0..2^63-1 (the order hashes their decimal form),"
                    + " got seed " + seed + ", epoch " + epoch);
        }
        if (shuffleBlock < 0) {
            throw new IllegalArgumentException("shuffleBlock must be >= 0 samples (0 = none), got " + shuffleBlock);
        }
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " of world size " + worldSize + ": need 0 <= rank < worldSize");
        }
        if (workers < 0) {
            throw new IllegalArgumentException("workers must be >= 0 (0 = the caller's thread), got " + workers);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be >= 1, got " + batchSize);
        }
        if (newOnly && !follow) {
            throw new IllegalArgumentException("newOnly reads what each epoch adds: it needs follow");
        }
        Objects.requireNonNull(pollInterval, "pollInterval");
        if (pollInterval.isNegative() || pollInterval.isZero() || followTimeout != null && followTimeout.isNegative()) {
            throw new IllegalArgumentException("poll interval must be > 0 and follow timeout >= 0 (or none), got "
                    + pollInterval + " and " + followTimeout);
        }
        if (cacheMaxBytes < 1) {
            throw new IllegalArgumentException("cache size must be >= 1 byte, got " + cacheMaxBytes);
        }
        Objects.requireNonNull(fetch, "fetch");
        if (resume != null && resume.sources().size() != read.sources().size()) {
            throw new IllegalArgumentException("the resume state names " + resume.sources().size() + " sources, this read "
                    + read.sources().size());
        }
    }

    /**
     * The latest snapshot of one dataset version, seed 0, epoch 0, shards shuffled, blocks of
     * {@value #DEFAULT_SHUFFLE_BLOCK}, rank 0 of 1, no workers, batches of 1, no follow, a temporary
     * 4 GiB cache, {@link FetchOptions#defaults()}.
     */
    public static ReaderOptions of(String dataset, String version) {
        return of(Mix.of(ReadSource.latest(dataset, version)));
    }

    /** Several datasets (or versions) mixed, otherwise as {@link #of(String, String)}. */
    public static ReaderOptions of(Mix mix) {
        return new ReaderOptions(mix, 0, 0, true, DEFAULT_SHUFFLE_BLOCK, false, 0, 1, 0, 1, false, false,
                Duration.ofSeconds(5), null, null, DEFAULT_CACHE_BYTES, true, FetchOptions.defaults(), null, false);
    }

    /** The first (or only) source's dataset. */
    public String dataset() {
        return read.sources().get(0).dataset();
    }

    public String version() {
        return read.sources().get(0).version();
    }

    /** Pins the only dataset to snapshot {@code id}. */
    public ReaderOptions withSnapshot(long id) {
        if (read.sources().size() != 1) {
            throw new IllegalArgumentException("withSnapshot pins a read of one dataset; pin each source of a mix in its ReadSource");
        }
        return with(d -> d.read = read.withSource(0, ReadSource.at(dataset(), version(), id)));
    }

    public ReaderOptions withShuffle(long orderSeed, long firstEpoch) {
        return with(d -> {
            d.seed = orderSeed;
            d.epoch = firstEpoch;
        });
    }

    public ReaderOptions withSeed(long orderSeed) {
        return with(d -> d.seed = orderSeed);
    }

    public ReaderOptions withEpoch(long firstEpoch) {
        return with(d -> d.epoch = firstEpoch);
    }

    public ReaderOptions withShuffleShards(boolean shuffle) {
        return with(d -> d.shuffleShards = shuffle);
    }

    public ReaderOptions withShuffleBlock(int samples) {
        return with(d -> d.shuffleBlock = samples);
    }

    public ReaderOptions withDropLast(boolean drop) {
        return with(d -> d.dropLast = drop);
    }

    /** This process is rank {@code rankOf} of {@code worldSizeOf}. */
    public ReaderOptions withRanks(int rankOf, int worldSizeOf) {
        return with(d -> {
            d.rank = rankOf;
            d.worldSize = worldSizeOf;
        });
    }

    /** Batches of {@code size}, made by {@code parallel} producer threads (0: the caller's). */
    public ReaderOptions withBatches(int size, int parallel) {
        return with(d -> {
            d.batchSize = size;
            d.workers = parallel;
        });
    }

    /** Follow: each epoch's start re-pins every dataset to its newest snapshot. */
    public ReaderOptions withFollow() {
        return with(d -> d.follow = true);
    }

    /**
     * Follow, each epoch reading only the shards appended since the previous epoch's snapshot,
     * polling every {@code poll} up to {@code timeout} (null: no limit) until there are some.
     */
    public ReaderOptions withNewOnly(Duration poll, Duration timeout) {
        return with(d -> {
            d.follow = true;
            d.newOnly = true;
            d.pollInterval = poll;
            d.followTimeout = timeout;
        });
    }

    public ReaderOptions withCache(Path dir, long maxBytes) {
        return with(d -> {
            d.cacheDir = dir;
            d.cacheMaxBytes = maxBytes;
        });
    }

    public ReaderOptions withVerifyCached(boolean verify) {
        return with(d -> d.verifyCached = verify);
    }

    /** Download-ahead depth and ranged GETs. */
    public ReaderOptions withFetch(FetchOptions fetchOptions) {
        return with(d -> d.fetch = fetchOptions);
    }

    /** Go on from {@code state} (saved by this reader or the Python one, on any topology). */
    public ReaderOptions resumeFrom(ReadState state) {
        return resumeFrom(state, false);
    }

    /** As {@link #resumeFrom(ReadState)}; {@code allowChange}: over this reader's snapshot if the state names another. */
    public ReaderOptions resumeFrom(ReadState state, boolean allowChange) {
        return with(d -> {
            d.resume = Objects.requireNonNull(state, "state");
            d.allowSnapshotChange = allowChange;
        });
    }

    private ReaderOptions with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return new ReaderOptions(d.read, d.seed, d.epoch, d.shuffleShards, d.shuffleBlock, d.dropLast, d.rank, d.worldSize,
                d.workers, d.batchSize, d.follow, d.newOnly, d.pollInterval, d.followTimeout, d.cacheDir, d.cacheMaxBytes,
                d.verifyCached, d.fetch, d.resume, d.allowSnapshotChange);
    }

    /** A mutable copy, so each {@code with...} names only what it changes. */
    private static final class Draft {
        Mix read;
        long seed;
        long epoch;
        boolean shuffleShards;
        int shuffleBlock;
        boolean dropLast;
        int rank;
        int worldSize;
        int workers;
        int batchSize;
        boolean follow;
        boolean newOnly;
        Duration pollInterval;
        Duration followTimeout;
        Path cacheDir;
        long cacheMaxBytes;
        boolean verifyCached;
        FetchOptions fetch;
        ReadState resume;
        boolean allowSnapshotChange;

        Draft(ReaderOptions o) {
            read = o.read;
            seed = o.seed;
            epoch = o.epoch;
            shuffleShards = o.shuffleShards;
            shuffleBlock = o.shuffleBlock;
            dropLast = o.dropLast;
            rank = o.rank;
            worldSize = o.worldSize;
            workers = o.workers;
            batchSize = o.batchSize;
            follow = o.follow;
            newOnly = o.newOnly;
            pollInterval = o.pollInterval;
            followTimeout = o.followTimeout;
            cacheDir = o.cacheDir;
            cacheMaxBytes = o.cacheMaxBytes;
            verifyCached = o.verifyCached;
            fetch = o.fetch;
            resume = o.resume;
            allowSnapshotChange = o.allowSnapshotChange;
        }
    }
}
