package io.shardflow.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class LaneChainsTest {

    @Test
    void shouldBuildEachLaneOnOneThreadInSealOrder() {
        List<ShardId> round = List.of(shard(0, 1), shard(1, 1), shard(0, 2), shard(2, 1), shard(1, 2), shard(0, 3));

        assertThat(LaneChains.of(round, 2)).containsExactly(List.of(0, 2, 5), List.of(1, 4), List.of(3));
    }

    @Test
    void shouldCutABusyLaneIntoConsecutivePiecesSoEveryThreadWorks() {
        List<ShardId> round = new ArrayList<>();
        for (int sequence = 1; sequence <= 8; sequence++) {
            round.add(shard(4, sequence));
        }

        assertThat(LaneChains.of(round, 2)).containsExactly(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7));
    }

    /** Every shard once; a chain holds one lane's shards in seal order and no more than the round's share per thread. */
    @Property
    void shouldChainEveryShardOnceInItsLanesOrder(@ForAll @Size(max = 40) List<@IntRange(max = 5) Integer> lanes,
            @ForAll @IntRange(min = 1, max = 8) int threads) {
        List<ShardId> round = new ArrayList<>();
        Map<Integer, Integer> sequence = new HashMap<>();
        for (int lane : lanes) {
            round.add(shard(lane, sequence.merge(lane, 1, Integer::sum)));
        }

        List<List<Integer>> chains = LaneChains.of(round, threads);

        List<Integer> all = chains.stream().flatMap(List::stream).sorted().toList();
        assertThat(all).containsExactlyElementsOf(java.util.stream.IntStream.range(0, round.size()).boxed().toList());
        int share = Math.max(1, (round.size() + threads - 1) / threads);
        for (List<Integer> chain : chains) {
            assertThat(chain).isNotEmpty().isSorted().hasSizeLessThanOrEqualTo(share);
            assertThat(chain.stream().map(i -> round.get(i).lane()).distinct()).hasSize(1);
        }
    }

    private static ShardId shard(int lane, long sequence) {
        return new ShardId("cats", "v1", lane, sequence);
    }
}
