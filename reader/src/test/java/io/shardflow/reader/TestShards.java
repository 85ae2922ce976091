package io.shardflow.reader;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Shard entries that exist only for the order arithmetic (ids and sample counts, no files), and
 * what the rules say a rank reads, as {@link ShardPublisher}'s sample ids.
 */
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

    /** What the rules say rank {@code rank} of {@code worldSize} reads, as ShardPublisher's sample ids. */
    static List<String> expectedIds(List<ShardEntry> shards, long seed, long epoch, int block, int rank, int worldSize,
                                    long consumed, boolean dropLast) {
        return expectedIds(shards, seed, epoch, block, rank, worldSize, consumed, dropLast, true);
    }

    static List<String> expectedIds(List<ShardEntry> shards, long seed, long epoch, int block, int rank, int worldSize,
                                    long consumed, boolean dropLast, boolean shuffleShards) {
        MixedOrder order = TestShards.order(shards, seed, epoch, shuffleShards, block);
        RankShare share = new RankShare(order.size(), consumed, rank, worldSize, dropLast);
        List<String> ids = new ArrayList<>();
        for (long i = 0; i < share.length(); i++) {
            MixedOrder.Entry e = order.entry(share.position(i));
            ids.add(idOf(e.shard(), e.row()));
        }
        return ids;
    }

    static String idOf(ShardEntry shard, int row) {
        ShardId id = shard.id();
        return ShardPublisher.sampleId(id.lane(), id.sequence(), row);
    }

    static Set<String> idsOf(List<ShardEntry> shards) {
        Set<String> ids = new HashSet<>();
        for (ShardEntry shard : shards) {
            for (int r = 0; r < shard.sampleCount(); r++) {
                ids.add(idOf(shard, r));
            }
        }
        return ids;
    }

}
