package io.shardflow.reader;

import io.shardflow.dataset.spec.Names;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link DatasetReader} reads and how. Start from {@link #of} and refine with the
 * {@code with...} methods; every combination is checked when built.
 *
 * @param snapshotId      the snapshot to pin, or null for the latest at open. Readers of one job
 *                        (all ranks and workers) must pin the same one: pass it explicitly.
 * @param seed            shard and sample shuffle seed
 * @param epoch           shuffle epoch: same seed and epoch, same order
 * @param rank            this process's rank, {@code 0 <= rank < worldSize}
 * @param workersPerRank  data-loading workers per rank
 * @param worker          this worker, {@code 0 <= worker < workersPerRank}
 * @param shuffleBuffer   samples held by the shuffle buffer; 0 yields each shard's rows in order
 * @param follow          after the pinned snapshot, keep polling the log and read new snapshots' shards
 * @param pollInterval    follow mode: wait between polls
 * @param idleTimeout     follow mode: stop after this long without a new snapshot
 * @param cacheDir        local shard cache; null = a temporary directory removed on close
 * @param cacheMaxBytes   cache size limit (least recently used shards are evicted)
 * @param verifyCached    hash cached shards again on every use, not only after download
 * @param skipSamples     samples to skip (from {@link #resumeFrom}); 0 for a fresh start
 * @param fetch           download-ahead and ranged GETs (speed and disk only, never the order)
 */
public record ReaderOptions(
        String dataset,
        String version,
        Long snapshotId,
        long seed,
        long epoch,
        int rank,
        int worldSize,
        int workersPerRank,
        int worker,
        int shuffleBuffer,
        boolean follow,
        Duration pollInterval,
        Duration idleTimeout,
        Path cacheDir,
        long cacheMaxBytes,
        boolean verifyCached,
        long skipSamples,
        FetchOptions fetch) {

    public static final long DEFAULT_CACHE_BYTES = 4L << 30;

    public ReaderOptions {
        Names.requireDatasetName("dataset name", dataset);
        Names.requireDatasetName("dataset version", version);
        if (snapshotId != null && snapshotId < 0) {
            throw new IllegalArgumentException("snapshot ids are >= 0, got " + snapshotId);
        }
        if (seed < 0 || epoch < 0) {
            throw new IllegalArgumentException("seed and epoch must be >= 0 (the shuffle rule hashes their decimal form),"
                    + " got seed " + seed + ", epoch " + epoch);
        }
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " of world size " + worldSize + ": need 0 <= rank < worldSize");
        }
        if (workersPerRank < 1 || worker < 0 || worker >= workersPerRank) {
            throw new IllegalArgumentException("worker " + worker + " of " + workersPerRank + " per rank: need 0 <= worker < workersPerRank");
        }
        if (shuffleBuffer < 0) {
            throw new IllegalArgumentException("shuffle buffer must be >= 0 (0 = off), got " + shuffleBuffer);
        }
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (pollInterval.isNegative() || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("poll interval and idle timeout must be >= 0");
        }
        if (cacheMaxBytes < 1) {
            throw new IllegalArgumentException("cache size must be >= 1 byte, got " + cacheMaxBytes);
        }
        if (skipSamples < 0) {
            throw new IllegalArgumentException("samples to skip must be >= 0, got " + skipSamples);
        }
        Objects.requireNonNull(fetch, "fetch");
    }

    /**
     * Latest snapshot, seed 0, epoch 0, one worker, no shuffle buffer, no follow, a temporary 4 GiB
     * cache, {@link FetchOptions#defaults()}.
     */
    public static ReaderOptions of(String dataset, String version) {
        return new ReaderOptions(dataset, version, null, 0, 0, 0, 1, 1, 0, 0, false, Duration.ofSeconds(5),
                Duration.ofMinutes(5), null, DEFAULT_CACHE_BYTES, true, 0, FetchOptions.defaults());
    }

    public ReaderOptions withSnapshot(long id) {
        return new ReaderOptions(dataset, version, id, seed, epoch, rank, worldSize, workersPerRank, worker, shuffleBuffer,
                follow, pollInterval, idleTimeout, cacheDir, cacheMaxBytes, verifyCached, skipSamples, fetch);
    }

    public ReaderOptions withShuffle(long shuffleSeed, long shuffleEpoch) {
        return new ReaderOptions(dataset, version, snapshotId, shuffleSeed, shuffleEpoch, rank, worldSize, workersPerRank,
                worker, shuffleBuffer, follow, pollInterval, idleTimeout, cacheDir, cacheMaxBytes, verifyCached, skipSamples, fetch);
    }

    public ReaderOptions withEpoch(long shuffleEpoch) {
        return withShuffle(seed, shuffleEpoch);
    }

    /** This reader is worker {@code worker} of {@code workersPerRank} in rank {@code rank} of {@code worldSize}. */
    public ReaderOptions withSplit(int rankOf, int worldSizeOf, int workerOf, int workersOf) {
        return new ReaderOptions(dataset, version, snapshotId, seed, epoch, rankOf, worldSizeOf, workersOf, workerOf,
                shuffleBuffer, follow, pollInterval, idleTimeout, cacheDir, cacheMaxBytes, verifyCached, skipSamples, fetch);
    }

    public ReaderOptions withShuffleBuffer(int samples) {
        return new ReaderOptions(dataset, version, snapshotId, seed, epoch, rank, worldSize, workersPerRank, worker, samples,
                follow, pollInterval, idleTimeout, cacheDir, cacheMaxBytes, verifyCached, skipSamples, fetch);
    }

    /** Follow mode: after the pinned snapshot, poll every {@code poll} and stop after {@code idle} without news. */
    public ReaderOptions withFollow(Duration poll, Duration idle) {
        return new ReaderOptions(dataset, version, snapshotId, seed, epoch, rank, worldSize, workersPerRank, worker,
                shuffleBuffer, true, poll, idle, cacheDir, cacheMaxBytes, verifyCached, skipSamples, fetch);
    }

    public ReaderOptions withCache(Path dir, long maxBytes) {
        return new ReaderOptions(dataset, version, snapshotId, seed, epoch, rank, worldSize, workersPerRank, worker,
                shuffleBuffer, follow, pollInterval, idleTimeout, dir, maxBytes, verifyCached, skipSamples, fetch);
    }

    public ReaderOptions withVerifyCached(boolean verify) {
        return new ReaderOptions(dataset, version, snapshotId, seed, epoch, rank, worldSize, workersPerRank, worker,
                shuffleBuffer, follow, pollInterval, idleTimeout, cacheDir, cacheMaxBytes, verify, skipSamples, fetch);
    }

    /** Download-ahead depth and ranged GETs. */
    public ReaderOptions withFetch(FetchOptions fetchOptions) {
        return new ReaderOptions(dataset, version, snapshotId, seed, epoch, rank, worldSize, workersPerRank, worker,
                shuffleBuffer, follow, pollInterval, idleTimeout, cacheDir, cacheMaxBytes, verifyCached, skipSamples,
                fetchOptions);
    }

    /**
     * Continue where a reader with these split and buffer settings left off: seed, epoch and pinned
     * snapshot come from the state, and the samples it yielded are skipped.
     */
    public ReaderOptions resumeFrom(ReaderState state) {
        return new ReaderOptions(dataset, version, state.snapshotId(), state.seed(), state.epoch(), rank, worldSize,
                workersPerRank, worker, shuffleBuffer, follow, pollInterval, idleTimeout, cacheDir, cacheMaxBytes,
                verifyCached, state.samplesYielded(), fetch);
    }

    /** {@code rank * workersPerRank + worker}. */
    public int globalWorker() {
        return rank * workersPerRank + worker;
    }

    /** {@code worldSize * workersPerRank}. */
    public int totalWorkers() {
        return Math.multiplyExact(worldSize, workersPerRank);
    }
}
