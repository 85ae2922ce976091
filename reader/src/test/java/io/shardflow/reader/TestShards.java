package io.shardflow.reader;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import java.util.ArrayList;
import java.util.List;

/** Shard entries that exist only in the log arithmetic: ids and sample counts, no files. */
final class TestShards {

    private TestShards() {
    }

    static ShardEntry entry(String shardId, int samples) {
        return ShardEntry.of(ShardId.parse(shardId), samples, 1, "0".repeat(64), "f", 0, 0);
    }

    /** Shards {@code d/v1/lane-00000/shard-<i>} of these sizes, in log order. */
    static List<ShardEntry> sized(List<Integer> sizes) {
        List<ShardEntry> shards = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            shards.add(entry(String.format("d/v1/lane-00000/shard-%012d", i), sizes.get(i)));
        }
        return shards;
    }

    /** One dataset's epoch order: the mix of one source read whole. */
    static MixedOrder order(List<ShardEntry> shards, long seed, long epoch, boolean shuffleShards, int block) {
        MixedOrder.MixSource source = new MixedOrder.MixSource(shards, shuffleShards, block);
        return new MixedOrder(List.of(source), List.of(source.size()), seed, epoch);
    }
}
