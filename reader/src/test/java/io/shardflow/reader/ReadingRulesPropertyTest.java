package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of the reading rules (docs/READING-RULES.md) on the order and split arithmetic the
 * loaders run: uneven shards of up to 5,000 samples, 1-64 ranks, 0-16 workers, resumed on other
 * topologies. The same properties as python/tests/test_reading_rules.py.
 */
class ReadingRulesPropertyTest {

    @Property(tries = 150)
    void shouldOrderEverySampleOfTheEpochExactlyOnceAndTheSameWayTwice(@ForAll("orders") MixedOrder order) {
        Set<String> seen = new HashSet<>();
        List<String> first = new ArrayList<>();
        for (long p = 0; p < order.size(); p++) {
            MixedOrder.Entry e = order.entry(p);
            assertThat(e.row()).isBetween(0, e.shard().sampleCount() - 1);
            String id = e.shard().shardId() + "#" + e.row();
            assertThat(seen.add(id)).as("position %d repeats %s", p, id).isTrue();
            first.add(id);
        }
        MixedOrder.MixSource source = order.sources().get(0);
        assertThat(seen).hasSize((int) source.size());
        MixedOrder again = new MixedOrder(order.sources(), List.of(source.size()), order.seed(), order.epoch());
        for (long p = 0; p < order.size(); p++) {
            MixedOrder.Entry e = again.entry(p);
            assertThat(e.shard().shardId() + "#" + e.row()).isEqualTo(first.get((int) p));
        }
        int block = source.shuffleBlock();
        if (block > 1) { // a sample moves only within its block
            EpochOrder epochOrder = new EpochOrder(source.shards(), order.seed(), order.epoch(), source.shuffleShards(), block);
            for (long p = 0; p < order.size(); p++) {
                assertThat(epochOrder.sourcePosition(p) / block).isEqualTo(p / block);
            }
        }
    }

    @Property(tries = 300)
    void shouldGiveEveryRankTheSameCountAndEverySampleOnceApartFromDeclaredPadding(
            @ForAll @IntRange(max = 5000) int size, @ForAll @IntRange(min = 1, max = 64) int worldSize,
            @ForAll boolean dropLast, @ForAll @IntRange(max = 5000) int consumedDraw) {
        long consumed = consumedDraw % (size + 1);
        long remaining = size - consumed;
        long length = dropLast ? remaining / worldSize : (remaining + worldSize - 1) / worldSize;
        Map<Long, Integer> taken = new HashMap<>();
        long padding = 0;
        for (int rank = 0; rank < worldSize; rank++) {
            RankShare share = new RankShare(size, consumed, rank, worldSize, dropLast);
            assertThat(share.length()).as("rank %d", rank).isEqualTo(length);
            long declared = 0;
            for (long i = 0; i < length; i++) {
                long position = share.position(i);
                assertThat(position).isBetween(consumed, (long) size - 1);
                if (share.isPadding(i)) {
                    declared++;
                    assertThat(position).as("padding repeats the remainder").isEqualTo(consumed + (rank + worldSize * i) % remaining);
                } else {
                    taken.merge(position, 1, Integer::sum);
                }
            }
            assertThat(share.padding()).isEqualTo(declared);
            padding += declared;
        }
        assertThat(padding).isEqualTo(dropLast ? 0 : worldSize * length - remaining);
        long end = dropLast ? consumed + worldSize * length : size;
        assertThat(taken).hasSize((int) (end - consumed)).allSatisfy((p, n) -> {
            assertThat(n).as("position %d", p).isEqualTo(1);
            assertThat(p).isBetween(consumed, end - 1);
        });
    }

    @Property(tries = 200)
    void shouldHandOutTheBatchesOfAllWorkersInOrder(@ForAll @IntRange(max = 300) int batches,
                                                     @ForAll @IntRange(max = 16) int workers) {
        assertThat(deliveredOrder(batches, workers)).isEqualTo(java.util.stream.LongStream.range(0, batches).boxed().toList());
    }

    /** Each run (ranks, workers, batch size) delivers some batches in lockstep, then the job stops; the last reads to the end. */
    @Property(tries = 200)
    void shouldResumeOnAnyTopologyWithNoSampleRepeatedAndNoneLost(
            @ForAll("orders") MixedOrder order, @ForAll @Size(min = 1, max = 4) List<@From("topologies") Run> runs,
            @ForAll boolean dropLast) {
        long consumed = 0;
        Map<Long, Integer> seen = new HashMap<>();
        for (int n = 0; n < runs.size(); n++) {
            Run run = runs.get(n);
            List<RankShare> shares = new ArrayList<>();
            for (int r = 0; r < run.worldSize(); r++) {
                shares.add(new RankShare(order.size(), consumed, r, run.worldSize(), dropLast));
            }
            long count = shares.get(0).batchCount(run.batchSize());
            long steps = n == runs.size() - 1 ? count : (long) (run.part() * count);
            List<Long> delivered = deliveredOrder(count, run.workers()).subList(0, (int) steps);
            for (RankShare share : shares) {
                for (long j : delivered) {
                    long[] batch = share.batch(j, run.batchSize());
                    for (int k = 0; k < batch.length; k++) {
                        if (!share.isPadding(j * run.batchSize() + k)) { // padding repeats: declared, not counted
                            seen.merge(batch[k], 1, Integer::sum);
                        }
                    }
                }
            }
            long after = shares.get(0).consumedAfter(steps, run.batchSize());
            for (RankShare share : shares) {
                assertThat(share.consumedAfter(steps, run.batchSize())).as("every rank's state agrees").isEqualTo(after);
            }
            if (after < order.size()) {
                assertThat(seen.keySet()).as("what was consumed is exactly the prefix the state names")
                        .containsExactlyInAnyOrderElementsOf(range(0, after));
            }
            consumed = after;
        }
        assertThat(consumed).isEqualTo(order.size());
        assertThat(seen.values()).as("no sample twice").allMatch(k -> k == 1);
        if (!dropLast) {
            assertThat(seen.keySet()).as("none lost").containsExactlyInAnyOrderElementsOf(range(0, order.size()));
        }
    }

    @Property(tries = 100)
    void shouldGiveEveryRankTheSameBatchCountWhateverTheBatchSize(@ForAll @IntRange(max = 5000) int size,
            @ForAll @IntRange(min = 1, max = 64) int worldSize, @ForAll @IntRange(min = 1, max = 64) int batchSize,
            @ForAll boolean dropLast, @ForAll @LongRange(max = 5000) long consumedDraw) {
        long consumed = consumedDraw % (size + 1);
        Set<Long> counts = new HashSet<>();
        for (int r = 0; r < worldSize; r++) {
            counts.add(new RankShare(size, consumed, r, worldSize, dropLast).batchCount(batchSize));
        }
        assertThat(counts).hasSize(1);
    }

    record Run(int worldSize, int workers, int batchSize, double part) {
    }

    @Provide
    Arbitrary<Run> topologies() {
        return Combinators.combine(Arbitraries.integers().between(1, 64), Arbitraries.integers().between(0, 16),
                Arbitraries.integers().between(1, 64), Arbitraries.doubles().between(0, 1)).as(Run::new);
    }

    /** Uneven shards (1-400 samples, at most 5,000 in all), any seed and epoch, blocks 0-600, shards shuffled or not. */
    @Provide
    Arbitrary<MixedOrder> orders() {
        Arbitrary<List<Integer>> sizes = Arbitraries.integers().between(1, 400).list().ofMaxSize(40).map(ReadingRulesPropertyTest::upTo5000);
        return Combinators.combine(sizes, Arbitraries.longs().between(0, Long.MAX_VALUE), Arbitraries.longs().between(0, 1000),
                Arbitraries.integers().between(0, 600), Arbitraries.of(true, false))
                .as((s, seed, epoch, block, shuffle) -> TestShards.order(TestShards.sized(s), seed, epoch, shuffle, block));
    }

    private static List<Integer> upTo5000(List<Integer> sizes) {
        List<Integer> kept = new ArrayList<>();
        int total = 0;
        for (int n : sizes) {
            if (total + n > 5000) {
                break;
            }
            kept.add(n);
            total += n;
        }
        return kept;
    }

    /** The order batches reach the trainer: round robin over the workers' queues, skipping exhausted ones. */
    static List<Long> deliveredOrder(long batchCount, int workers) {
        List<List<Long>> queues = new ArrayList<>();
        for (int w = 0; w < Math.max(workers, 1); w++) {
            List<Long> mine = new ArrayList<>();
            for (long j = w; j < batchCount; j += RankShare.workerStride(w, workers)) {
                mine.add(j);
            }
            queues.add(mine);
        }
        List<Long> out = new ArrayList<>();
        while (queues.stream().anyMatch(q -> !q.isEmpty())) {
            for (List<Long> q : queues) {
                if (!q.isEmpty()) {
                    out.add(q.remove(0));
                }
            }
        }
        return out;
    }

    private static List<Long> range(long from, long to) {
        return java.util.stream.LongStream.range(from, to).boxed().toList();
    }
}
