package io.shardflow.reader;

/**
 * Rank {@code rank} of {@code worldSize}'s part of what is left of an epoch, and its batches and
 * workers (docs/READING-RULES.md, section 2).
 *
 * <p>The remainder is positions {@code [consumed, size)} of the epoch order ({@code R = size -
 * consumed}). The rank takes remainder offsets {@code rank + worldSize*i} for {@code i} in
 * {@code [0, L)}, {@code L} the same on every rank: {@code ceil(R/N)}, offsets past {@code R}
 * repeating the remainder from its start (declared padding), or {@code floor(R/N)} with
 * {@code dropLast}. Its sequence is cut into batches of {@code b}; worker {@code w} of {@code W}
 * makes batches {@code j} with {@code j mod W = w}. Once every rank has delivered {@code k}
 * batches, the job has consumed exactly positions {@code [consumed, consumed + N*k*b)}: the resume
 * state is that one number, whatever {@code N} and {@code W} were.
 *
 * @param size     S: the epoch's positions
 * @param consumed C: positions {@code [0, C)} were delivered before this share began
 */
record RankShare(long size, long consumed, int rank, int worldSize, boolean dropLast) {

    RankShare {
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is not one of 0.." + (worldSize - 1));
        }
        if (consumed < 0 || consumed > size) {
            throw new IllegalArgumentException(consumed + " samples consumed of an epoch of " + size);
        }
    }

    /** R: positions left. */
    long remaining() {
        return size - consumed;
    }

    /** L: samples this rank (and every other) yields. */
    long length() {
        long r = remaining();
        return dropLast ? r / worldSize : (r + worldSize - 1) / worldSize;
    }

    /** How many of this rank's samples repeat earlier ones of the epoch (0 with dropLast). */
    long padding() {
        long r = remaining();
        long length = length();
        if (rank >= r) {
            return length;
        }
        // Samples i with rank + N*i < R: i < ceil((R - rank) / N).
        long fresh = (r - rank + worldSize - 1) / worldSize;
        return Math.max(0, length - fresh);
    }

    /** Epoch position of this rank's sample {@code i} (0-based in its sequence, {@code i < L}). */
    long position(long i) {
        if (i < 0 || i >= length()) {
            throw new IndexOutOfBoundsException("sample " + i + " of a rank share of " + length());
        }
        long offset = rank + worldSize * i;
        long r = remaining();
        return consumed + (offset >= r ? offset % r : offset);
    }

    /** Whether this rank's sample {@code i} is declared padding (a repeat). */
    boolean isPadding(long i) {
        return rank + worldSize * i >= remaining();
    }

    long batchCount(int batchSize) {
        requireBatchSize(batchSize);
        return (length() + batchSize - 1) / batchSize;
    }

    /** Epoch positions of batch {@code j} (the last may be short, on every rank alike). */
    long[] batch(long j, int batchSize) {
        requireBatchSize(batchSize);
        long from = j * batchSize;
        long to = Math.min(from + batchSize, length());
        long[] positions = new long[(int) Math.max(0, to - from)];
        for (int k = 0; k < positions.length; k++) {
            positions[k] = position(from + k);
        }
        return positions;
    }

    /**
     * The epoch's consumed count once every rank has delivered {@code batches} batches of
     * {@code batchSize}: the prefix {@code C + N*k*b}, or the whole epoch once the ranks are done.
     */
    long consumedAfter(long batches, int batchSize) {
        requireBatchSize(batchSize);
        if (batches >= batchCount(batchSize)) {
            return size;
        }
        return consumed + (long) worldSize * batches * batchSize;
    }

    /**
     * Checks that {@code worker} is one of {@code workers} ({@code 0}: the rank's own thread makes
     * every batch). Worker {@code w} makes batches {@code w, w + W, w + 2W, ...}; taken round robin
     * they arrive as {@code 0, 1, 2, ...}.
     */
    static int workerStride(int worker, int workers) {
        int stride = Math.max(workers, 1);
        if (workers < 0 || worker < 0 || worker >= stride) {
            throw new IllegalArgumentException("worker " + worker + " is not one of 0.." + (stride - 1));
        }
        return stride;
    }

    private static void requireBatchSize(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be >= 1, got " + batchSize);
        }
    }
}
