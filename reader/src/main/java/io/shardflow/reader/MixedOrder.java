package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One epoch's positions mapped to (source, shard, row), for one dataset or a mix of several
 * (docs/READING-RULES.md, sections 1 and 4). One source whose count is its size is the plain epoch
 * order of that dataset.
 *
 * <p>Source {@code i} gives exactly {@code n_i} samples: sample {@code k} of it has the key
 * {@code (2k+1) / (2 n_i)} (one IEEE double division), all sorted by (key, source). It reads its
 * own stream, its epoch orders one after another: mixed epoch {@code E} takes stream positions
 * {@code [E*n_i, (E+1)*n_i)}. Thread-safe.
 */
final class MixedOrder {

    /** What the order needs of one source: its pinned snapshot's shards and shuffle settings. */
    record MixSource(List<ShardEntry> shards, boolean shuffleShards, int shuffleBlock) {

        MixSource {
            shards = List.copyOf(shards);
        }

        long size() {
            return shards.stream().mapToLong(ShardEntry::sampleCount).sum();
        }
    }

    /** One position of the epoch: source index, shard, row in the shard. */
    record Entry(int source, ShardEntry shard, int row) {
    }

    private record SourceEpoch(int source, long epoch) {
    }

    private final List<MixSource> sources;
    private final List<Long> counts;
    private final long[] sizes;
    private final long seed;
    private final long epoch;
    private final long size;
    /** For a mix: the source and index within it of each position; null for one source. */
    private final int[] sourceAt;
    private final int[] indexAt;
    private final Map<SourceEpoch, EpochOrder> orders = new ConcurrentHashMap<>();

    MixedOrder(List<MixSource> sources, List<Long> counts, long seed, long epoch) {
        if (sources.size() != counts.size()) {
            throw new IllegalArgumentException("one count per source: " + sources.size() + " sources, " + counts.size() + " counts");
        }
        this.sources = List.copyOf(sources);
        this.counts = List.copyOf(counts);
        this.sizes = new long[sources.size()];
        long total = 0;
        for (int i = 0; i < sources.size(); i++) {
            sizes[i] = sources.get(i).size();
            if (counts.get(i) > 0 && sizes[i] == 0) {
                throw new IllegalArgumentException("mix source " + i + " has no samples but should give " + counts.get(i)
                        + " per epoch");
            }
            total = Math.addExact(total, counts.get(i));
        }
        this.seed = seed;
        this.epoch = epoch;
        this.size = total;
        if (sources.size() > 1) { // one source needs no interleave: position k is its sample k
            int[][] mixed = interleave(counts);
            this.sourceAt = mixed[0];
            this.indexAt = mixed[1];
        } else {
            this.sourceAt = null;
            this.indexAt = null;
        }
    }

    /** T: positions in the epoch. */
    long size() {
        return size;
    }

    List<MixSource> sources() {
        return sources;
    }

    long seed() {
        return seed;
    }

    long epoch() {
        return epoch;
    }

    /** Source, shard and row of each position, in the order given. */
    List<Entry> entries(long[] positions) {
        List<Entry> out = new ArrayList<>(positions.length);
        for (long position : positions) {
            out.add(entry(position));
        }
        return out;
    }

    Entry entry(long position) {
        if (position < 0 || position >= size) {
            throw new IndexOutOfBoundsException("position " + position + " outside the epoch's 0.." + (size - 1));
        }
        int source = sourceAt == null ? 0 : sourceAt[(int) position];
        long index = indexAt == null ? position : indexAt[(int) position];
        long[] at = streamPosition(epoch, counts.get(source), index, sizes[source]);
        EpochOrder order = orders.computeIfAbsent(new SourceEpoch(source, at[0]), key -> {
            MixSource s = sources.get(key.source());
            return new EpochOrder(s.shards(), seed, key.epoch(), s.shuffleShards(), s.shuffleBlock());
        });
        EpochOrder.ShardRow found = order.locate(at[1]);
        return new Entry(source, order.shards().get(found.shard()), found.row());
    }

    /** (source epoch, position in it) of stream position {@code epoch * count + index}; no overflow. */
    static long[] streamPosition(long epoch, long count, long index, long sourceSize) {
        try {
            long stream = Math.addExact(Math.multiplyExact(epoch, count), index);
            return new long[] {stream / sourceSize, stream % sourceSize};
        } catch (ArithmeticException e) {
            BigInteger[] qr = BigInteger.valueOf(epoch).multiply(BigInteger.valueOf(count)).add(BigInteger.valueOf(index))
                    .divideAndRemainder(BigInteger.valueOf(sourceSize));
            if (qr[0].bitLength() > 63) {
                throw new IllegalArgumentException("epoch " + epoch + " takes a source past its epoch 2^63-1", e);
            }
            return new long[] {qr[0].longValue(), qr[1].longValue()};
        }
    }

    /**
     * {@code total} split in proportion to {@code weights} (each > 0) by largest remainder: the exact
     * quotas' floors, then one more to the largest remainders, ties to the lower index. Exact
     * rational arithmetic on each double's exact value ({@code new BigDecimal(0.7)}).
     */
    static List<Long> apportion(long total, List<Double> weights) {
        if (total < 0) {
            throw new IllegalArgumentException("epochSamples must be >= 0, got " + total);
        }
        if (weights.isEmpty() || weights.stream().anyMatch(w -> !(w > 0) || w.isInfinite())) {
            throw new IllegalArgumentException("mixing weights must all be > 0, got " + weights);
        }
        List<BigDecimal> exact = weights.stream().map(BigDecimal::new).toList();
        BigDecimal whole = exact.stream().reduce(BigDecimal.ZERO, BigDecimal::add);
        BigDecimal t = BigDecimal.valueOf(total);
        List<Long> counts = new ArrayList<>();
        // quota_i = total * w_i / whole; all share the denominator, so remainders compare by numerator.
        List<BigDecimal> remainders = new ArrayList<>();
        long given = 0;
        for (BigDecimal w : exact) {
            BigDecimal numerator = t.multiply(w);
            long floor = numerator.divide(whole, 0, RoundingMode.FLOOR).longValueExact();
            counts.add(floor);
            remainders.add(numerator.subtract(whole.multiply(BigDecimal.valueOf(floor))));
            given += floor;
        }
        List<Integer> byRemainder = new ArrayList<>();
        for (int i = 0; i < counts.size(); i++) {
            byRemainder.add(i);
        }
        byRemainder.sort(Comparator.comparing((Integer i) -> remainders.get(i)).reversed().thenComparing(i -> i));
        for (int k = 0; k < total - given; k++) {
            int i = byRemainder.get(k);
            counts.set(i, counts.get(i) + 1);
        }
        return counts;
    }

    /**
     * (source, index within the source) of each position of the mixed epoch: sample {@code k} of
     * source {@code i} at key {@code (2k+1) / (2 n_i)}, sorted by (key, source). Each source's keys
     * rise, so a merge of the sources gives the sorted order.
     */
    static int[][] interleave(List<Long> counts) {
        long total = 0;
        for (long n : counts) {
            if (n >= 1L << 52) {
                throw new IllegalArgumentException("a source count must stay below 2^52 samples per epoch, got " + n);
            }
            total += n;
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a mixed epoch holds at most " + (Integer.MAX_VALUE - 8) + " samples, got " + total);
        }
        int[] sourceAt = new int[(int) total];
        int[] indexAt = new int[(int) total];
        long[] next = new long[counts.size()];
        PriorityQueue<Integer> heads = new PriorityQueue<>(Comparator
                .comparingDouble((Integer i) -> key(next[i], counts.get(i))).thenComparingInt(i -> i));
        for (int i = 0; i < counts.size(); i++) {
            if (counts.get(i) > 0) {
                heads.add(i);
            }
        }
        for (int p = 0; p < total; p++) {
            int i = heads.poll();
            sourceAt[p] = i;
            indexAt[p] = (int) next[i]++;
            if (next[i] < counts.get(i)) {
                heads.add(i);
            }
        }
        return new int[][] {sourceAt, indexAt};
    }

    /** {@code (2k+1) / (2n)} in IEEE doubles, as numpy computes it. */
    static double key(long k, long n) {
        return (2.0 * k + 1) / (2.0 * n);
    }
}
