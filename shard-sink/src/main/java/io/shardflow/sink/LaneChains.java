package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a round's shards are shared among the build threads: in chains, each one lane's shards in
 * seal order, built one after another on one thread. A samples reader keeps its partition between
 * reads (KafkaSampleSource), so a chain streams its lane from the broker once; two shards of one lane
 * built side by side would each seek, and a seek drops what the reader fetched ahead and fetches it
 * again (docs/ARCHITECTURE.md § 4, step 2). A lane with more than its share of the round (more than
 * the round over the threads) is cut into consecutive pieces, so a round of one busy lane still
 * keeps every thread working: each piece costs one seek.
 */
final class LaneChains {

    private LaneChains() {
    }

    /** Indexes into {@code shards}, in chains; every index once, each chain one lane's in increasing index order. */
    static List<List<Integer>> of(List<ShardId> shards, int threads) {
        Map<Integer, List<Integer>> byLane = new LinkedHashMap<>();
        for (int i = 0; i < shards.size(); i++) {
            byLane.computeIfAbsent(shards.get(i).lane(), lane -> new ArrayList<>()).add(i);
        }
        int share = Math.max(1, (shards.size() + threads - 1) / threads);
        List<List<Integer>> chains = new ArrayList<>();
        for (List<Integer> lane : byLane.values()) {
            for (int from = 0; from < lane.size(); from += share) {
                chains.add(List.copyOf(lane.subList(from, Math.min(lane.size(), from + share))));
            }
        }
        return chains;
    }
}
