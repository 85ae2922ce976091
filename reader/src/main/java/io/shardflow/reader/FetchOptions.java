package io.shardflow.reader;

/**
 * How a {@link DatasetReader} downloads shards: how many ahead of the one being read, and when and
 * how to split one shard into ranged GETs fetched at once. They change speed and memory (disk: about
 * {@code prefetch + 1} shards in the cache that are not evicted while pending), never what is read
 * or in which order.
 *
 * @param prefetch       shards downloaded ahead of the one being read, and GETs in flight; 0 = none
 * @param rangeSize      bytes per ranged GET
 * @param rangeThreshold shards of at least this many bytes are fetched as ranges of {@code rangeSize}
 */
public record FetchOptions(int prefetch, long rangeSize, long rangeThreshold) {

    public static final int DEFAULT_PREFETCH = 4;
    public static final long DEFAULT_RANGE_SIZE = 8L << 20;
    public static final long DEFAULT_RANGE_THRESHOLD = 16L << 20;

    public FetchOptions {
        if (prefetch < 0) {
            throw new IllegalArgumentException("prefetch must be >= 0 shards, got " + prefetch);
        }
        if (rangeSize < 1 || rangeThreshold < 1) {
            throw new IllegalArgumentException("range size and threshold must be >= 1 byte, got " + rangeSize + " and "
                    + rangeThreshold);
        }
    }

    /** 4 shards ahead; shards of 16 MiB or more as 8 MiB ranges. */
    public static FetchOptions defaults() {
        return new FetchOptions(DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD);
    }

    /** The GETs for an object of {@code size} bytes, as {offset, length} pairs: one below the threshold. */
    long[][] ranges(long size) {
        if (size < rangeThreshold || size <= rangeSize) {
            return new long[][] {{0, size}};
        }
        int count = Math.toIntExact((size + rangeSize - 1) / rangeSize);
        long[][] ranges = new long[count][];
        for (int i = 0; i < count; i++) {
            long offset = i * rangeSize;
            ranges[i] = new long[] {offset, Math.min(rangeSize, size - offset)};
        }
        return ranges;
    }
}
