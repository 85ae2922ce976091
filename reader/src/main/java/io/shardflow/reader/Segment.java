package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * One part of a worker's stream, shuffled and drained on its own: the pinned snapshot's shards, or
 * (follow mode) the shards one later commit added. Segments follow the commit log, never the timing
 * of polls, so a resumed reader rebuilds exactly the same stream.
 *
 * <p>Positions in the global order run on across segments: the pinned snapshot's {@code n} shards
 * take positions {@code 0..n-1}, the next commit's shards the positions after them, and so on, so
 * commits of one shard still spread over all workers.
 *
 * @param snapshotId       the pinned snapshot, or the commit whose shards these are
 * @param firstPosition    global position of this segment's first shard (in shuffled order)
 * @param shardCount       shards in the segment, all workers together
 * @param mine             this worker's shards, in shuffled order
 */
record Segment(long snapshotId, long firstPosition, int shardCount, List<ShardEntry> mine) {

    Segment {
        mine = List.copyOf(mine);
    }

    /** Shuffles {@code shards} for (seed, epoch) and keeps the positions that belong to this worker. */
    static Segment of(long snapshotId, long firstPosition, List<ShardEntry> shards, ReaderOptions options) {
        List<ShardEntry> ordered = ShardOrder.shuffle(shards, options.seed(), options.epoch());
        List<ShardEntry> mine = new ArrayList<>();
        for (int i = 0; i < ordered.size(); i++) {
            if (ShardOrder.belongsTo(firstPosition + i, options.globalWorker(), options.totalWorkers())) {
                mine.add(ordered.get(i));
            }
        }
        return new Segment(snapshotId, firstPosition, ordered.size(), mine);
    }

    long nextPosition() {
        return firstPosition + shardCount;
    }

    long sampleCount() {
        return mine.stream().mapToLong(ShardEntry::sampleCount).sum();
    }
}
