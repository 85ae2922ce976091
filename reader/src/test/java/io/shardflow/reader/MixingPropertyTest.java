package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Mixing (docs/READING-RULES.md, section 4): exact per-epoch counts, an even interleave, sources
 * cycling through their own epochs. The same properties as python/tests/test_mixing.py.
 */
class MixingPropertyTest {

    @Property(tries = 300)
    void shouldApportionTheEpochExactlyByLargestRemainder(@ForAll @IntRange(max = 5000) int total,
                                                          @ForAll("weights") List<Double> weights) {
        List<Long> counts = MixedOrder.apportion(total, weights);

        assertThat(counts.stream().mapToLong(Long::longValue).sum()).isEqualTo(total);
        BigDecimal whole = weights.stream().map(BigDecimal::new).reduce(BigDecimal.ZERO, BigDecimal::add);
        for (int i = 0; i < weights.size(); i++) {
            BigDecimal quota = BigDecimal.valueOf(total).multiply(new BigDecimal(weights.get(i))).divide(whole, MathContext.DECIMAL128);
            assertThat(BigDecimal.valueOf(counts.get(i)).subtract(quota).abs()).as("count %d within one of its share", i)
                    .isLessThan(BigDecimal.ONE);
        }
    }

    @Property(tries = 200)
    void shouldInterleaveEachSourceItsExactCountEvenly(@ForAll @Size(min = 1, max = 6) List<@IntRange(max = 400) Integer> sizes) {
        List<Long> counts = sizes.stream().map(Integer::longValue).toList();
        int[][] mixed = MixedOrder.interleave(counts);
        long total = counts.stream().mapToLong(Long::longValue).sum();
        assertThat(mixed[0]).hasSize((int) total);
        for (int i = 0; i < counts.size(); i++) {
            long n = counts.get(i);
            long seen = 0;
            for (int p = 0; p < total; p++) {
                if (mixed[0][p] == i) {
                    assertThat(mixed[1][p]).as("a source's samples in its own order").isEqualTo(seen);
                    seen++;
                }
                double ideal = (p + 1) * (double) n / total;
                // Each other source can be half a sample off its own ideal at any point: the bound of this interleave.
                assertThat(Math.abs(seen - ideal)).as("source %d after %d", i, p + 1).isLessThanOrEqualTo(1 + counts.size() / 2.0);
            }
            assertThat(seen).isEqualTo(n);
        }
    }

    @Property(tries = 100)
    void shouldCycleEachSourceThroughItsOwnEpochs(
            @ForAll @Size(min = 1, max = 3) List<@Size(min = 1, max = 4) List<@IntRange(min = 1, max = 30) Integer>> sizes,
            @ForAll @Size(3) List<@IntRange(max = 60) Integer> countDraws, @ForAll @IntRange(min = 1, max = 4) int epochs,
            @ForAll @IntRange(max = 99) int seed) {
        List<MixedOrder.MixSource> sources = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            List<io.shardflow.dataset.log.ShardEntry> shards = new ArrayList<>();
            for (int k = 0; k < sizes.get(i).size(); k++) {
                shards.add(TestShards.entry(String.format("s%d/v1/lane-00000/shard-%012d", i, k), sizes.get(i).get(k)));
            }
            sources.add(new MixedOrder.MixSource(shards, true, 7));
        }
        List<Long> counts = countDraws.subList(0, sources.size()).stream().map(Integer::longValue).toList();
        List<Map<String, Integer>> streams = new ArrayList<>();
        sources.forEach(s -> streams.add(new HashMap<>()));
        for (int epoch = 0; epoch < epochs; epoch++) {
            MixedOrder order = new MixedOrder(sources, counts, seed, epoch);
            for (long p = 0; p < order.size(); p++) {
                MixedOrder.Entry e = order.entry(p);
                streams.get(e.source()).merge(e.shard().shardId() + "#" + e.row(), 1, Integer::sum);
            }
        }
        for (int i = 0; i < sources.size(); i++) {
            long taken = epochs * counts.get(i);
            long size = sources.get(i).size();
            long full = taken / size;
            long part = taken % size;
            Map<String, Integer> stream = streams.get(i);
            assertThat(stream.values().stream().mapToLong(Integer::longValue).sum()).isEqualTo(taken);
            assertThat((long) stream.size()).as("whole epochs of the source, then part of one").isEqualTo(full > 0 ? size : part);
            assertThat(stream.values()).as("no sample of a source twice before its epoch ends")
                    .allMatch(n -> n == full || n == full + 1);
        }
    }

    @Provide
    Arbitrary<List<Double>> weights() {
        return Arbitraries.oneOf(Arbitraries.integers().between(1, 50).map(Integer::doubleValue),
                Arbitraries.doubles().between(0.001, 10).ofScale(6)).list().ofMinSize(1).ofMaxSize(6);
    }
}
