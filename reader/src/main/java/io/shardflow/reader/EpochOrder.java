package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The global epoch order of one dataset (docs/READING-RULES.md, section 1): every sample of the
 * pinned snapshot once, the same for every topology and every language.
 *
 * <ol>
 *   <li>Shards sorted by {@link ShardOrder#key} (log order when {@code shuffleShards} is off).</li>
 *   <li>Their rows concatenated in that order, rows in file order: source positions {@code 0..S-1}.</li>
 *   <li>Permuted within blocks of {@code shuffleBlock} positions (none when it is 0 or 1): a block's
 *       offsets sorted by a SplitMix64 key of (seed, epoch, block, offset), ties by offset.</li>
 * </ol>
 *
 * <p>A position is located without reading the dataset: a block's permutation is computed when
 * first needed, and the last few are kept. Thread-safe.
 */
final class EpochOrder {

    static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final int KEPT_BLOCKS = 8;

    private final long seed;
    private final long epoch;
    private final int shuffleBlock;
    private final List<ShardEntry> shards;
    /** starts[i]: source position of shard i's first row; starts[n] = S. */
    private final long[] starts;
    private final Map<Long, int[]> blocks = new LinkedHashMap<>(16, 0.75f, true);

    EpochOrder(List<ShardEntry> shards, long seed, long epoch, boolean shuffleShards, int shuffleBlock) {
        if (shuffleBlock < 0) {
            throw new IllegalArgumentException("shuffleBlock must be >= 0 samples, got " + shuffleBlock);
        }
        this.seed = seed;
        this.epoch = epoch;
        this.shuffleBlock = shuffleBlock;
        this.shards = shuffleShards ? ShardOrder.shuffle(shards, seed, epoch) : List.copyOf(shards);
        this.starts = new long[this.shards.size() + 1];
        for (int i = 0; i < this.shards.size(); i++) {
            starts[i + 1] = starts[i] + this.shards.get(i).sampleCount();
        }
    }

    /** S: samples in the epoch. */
    long size() {
        return starts[starts.length - 1];
    }

    /** The shards in this epoch's order. */
    List<ShardEntry> shards() {
        return shards;
    }

    /** Index into {@link #shards()} and row in that shard of epoch position {@code position}. */
    ShardRow locate(long position) {
        long source = sourcePosition(position);
        int shard = Arrays.binarySearch(starts, source);
        // starts rise strictly (every shard holds a row): a hit is that shard's first row, a miss
        // gives the insertion point, one past the shard holding it.
        shard = shard >= 0 ? shard : -shard - 2;
        return new ShardRow(shard, (int) (source - starts[shard]));
    }

    /** Where epoch position {@code position}'s sample stands among the concatenated rows. */
    long sourcePosition(long position) {
        if (position < 0 || position >= size()) {
            throw new IndexOutOfBoundsException("position " + position + " outside the epoch's 0.." + (size() - 1));
        }
        if (shuffleBlock <= 1) {
            return position;
        }
        long block = position / shuffleBlock;
        int offset = (int) (position % shuffleBlock);
        return block * shuffleBlock + permutation(block)[offset];
    }

    private synchronized int[] permutation(long block) {
        int[] perm = blocks.get(block);
        if (perm == null) {
            int length = (int) Math.min(shuffleBlock, size() - block * shuffleBlock);
            perm = blockPermutation(seed, epoch, block, length);
            blocks.put(block, perm);
            if (blocks.size() > KEPT_BLOCKS) {
                blocks.remove(blocks.keySet().iterator().next());
            }
        }
        return perm;
    }

    /** (index of the shard in the epoch's shard order, row in that shard). */
    record ShardRow(int shard, int row) {
    }

    /** SplitMix64's finaliser on one unsigned 64-bit value ({@code >>} unsigned, products wrap). */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The seed of block {@code block}'s keys: {@code mix64(mix64(mix64(seed) ^ epoch) ^ block)}. */
    static long blockKey(long seed, long epoch, long block) {
        return mix64(mix64(mix64(seed) ^ epoch) ^ block);
    }

    /**
     * Key of offset {@code j}: {@code mix64(blockKey + (j + 1) * GOLDEN_GAMMA)}, the {@code j+1}-th
     * output of {@code new SplittableRandom(blockKey)}. Compared as unsigned.
     */
    static long offsetKey(long blockKey, long j) {
        return mix64(blockKey + (j + 1) * GOLDEN_GAMMA);
    }

    /** Offsets {@code 0..size-1} sorted by their unsigned key, ties by offset (a stable sort). */
    static int[] blockPermutation(long seed, long epoch, long block, int size) {
        long key = blockKey(seed, epoch, block);
        long[] keys = new long[size];
        for (int j = 0; j < size; j++) {
            keys[j] = offsetKey(key, j);
        }
        int[] order = new int[size];
        for (int j = 0; j < size; j++) {
            order[j] = j;
        }
        mergeSort(order, new int[size], keys, 0, size);
        return order;
    }

    /** A stable merge sort of {@code order[from, to)} by the unsigned keys of its offsets. */
    private static void mergeSort(int[] order, int[] scratch, long[] keys, int from, int to) {
        if (to - from < 2) {
            return;
        }
        int middle = (from + to) >>> 1;
        mergeSort(order, scratch, keys, from, middle);
        mergeSort(order, scratch, keys, middle, to);
        int left = from;
        int right = middle;
        for (int k = from; k < to; k++) {
            boolean takeLeft = right >= to
                    || left < middle && Long.compareUnsigned(keys[order[left]], keys[order[right]]) <= 0;
            scratch[k] = takeLeft ? order[left++] : order[right++];
        }
        System.arraycopy(scratch, from, order, from, to - from);
    }
}
