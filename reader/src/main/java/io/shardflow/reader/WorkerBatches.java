package io.shardflow.reader;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The batches one producer makes of its rank's share: worker {@code w} of {@code W} makes batches
 * {@code w, w + W, ...} (all of them when {@code W = 0}), each a list of samples in the rules'
 * order. A few batches ahead are planned, so the shards they need are downloaded while the current
 * one is read, and a shard stays decoded exactly as long as a planned batch needs it. Not
 * thread-safe: one per producer.
 */
final class WorkerBatches implements AutoCloseable {

    private static final int MAX_LOOKAHEAD = 64;

    /** One batch: its index in the rank's sequence and its samples. */
    record Batch(long index, List<ReadSample> samples) {
    }

    private record Planned(long index, List<MixedOrder.Entry> entries) {
    }

    private final MixedOrder order;
    private final RankShare share;
    private final int batchSize;
    private final int stride;
    private final long batchCount;
    private final RowReader rows;
    private final int lookahead;
    private final Deque<Planned> pending = new ArrayDeque<>();
    private long nextToPlan;

    WorkerBatches(MixedOrder order, RankShare share, int batchSize, int worker, int workers, RowReader rows) {
        this.order = order;
        this.share = share;
        this.batchSize = batchSize;
        this.stride = RankShare.workerStride(worker, workers);
        this.batchCount = share.batchCount(batchSize);
        this.rows = rows;
        this.nextToPlan = worker;
        // Enough batches ahead to see the shards of the block being read, and the next one's first.
        long spread = Math.max(1L, (long) share.worldSize() * batchSize * stride);
        int block = order.sources().stream().mapToInt(MixedOrder.MixSource::shuffleBlock).max().orElse(0);
        this.lookahead = (int) Math.min(MAX_LOOKAHEAD, 2 + (Math.max(block, 1) + spread - 1) / spread);
    }

    /** The next batch this producer makes, or null once it has made all of its own. */
    Batch next() {
        while (pending.size() < lookahead && nextToPlan < batchCount) {
            pending.add(new Planned(nextToPlan, order.entries(share.batch(nextToPlan, batchSize))));
            nextToPlan += stride;
        }
        Planned current = pending.poll();
        if (current == null) {
            return null;
        }
        List<MixedOrder.Entry> upcoming = new ArrayList<>(current.entries());
        Set<String> keep = new HashSet<>();
        for (Planned later : pending) {
            upcoming.addAll(later.entries());
            later.entries().forEach(e -> keep.add(e.shard().shardId()));
        }
        rows.schedule(upcoming);
        return new Batch(current.index(), rows.read(current.entries(), keep));
    }

    @Override
    public void close() {
        rows.close();
    }
}
