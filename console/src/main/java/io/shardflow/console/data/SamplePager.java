package io.shardflow.console.data;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.spec.DatasetSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Pages of a snapshot's samples in snapshot order, with a cursor instead of an offset: the cursor is
 * the position (shard index in the snapshot, row in that shard) where the next page starts, so a page
 * deep into a million samples costs the same as the first (no counting from the start). With a
 * filter, shards the log's time range or the cached statistics rule out are skipped unread, and one
 * request reads at most {@code maxShardsPerPage} shards: a rare value ends the page early with a
 * cursor to go on from, instead of a request that scans the whole dataset.
 */
public final class SamplePager {

    /** A sample on a page: its shard, its row there, and the row itself. */
    public record Item(ShardEntry shard, int row, SampleRow sample) {
    }

    /**
     * @param next         where the next page starts, empty at the end of the snapshot
     * @param shardsRead   shards read (decoded) for this page
     * @param shardsSkipped shards the filter ruled out without reading them
     */
    public record Page(List<Item> items, Optional<Cursor> next, int shardsRead, int shardsSkipped) {
    }

    private final DatasetAccess access;
    private final SnapshotStatistics statistics;
    private final int maxShardsPerPage;

    public SamplePager(DatasetAccess access, SnapshotStatistics statistics, int maxShardsPerPage) {
        this.access = access;
        this.statistics = statistics;
        this.maxShardsPerPage = maxShardsPerPage;
    }

    public Page page(DatasetSpec spec, Snapshot snapshot, Cursor from, SampleFilter filter, int size) {
        List<ShardEntry> shards = snapshot.shards();
        List<Item> items = new ArrayList<>(size);
        int read = 0;
        int skipped = 0;
        int shard = from.shard();
        int row = from.row();
        while (shard < shards.size()) {
            ShardEntry entry = shards.get(shard);
            boolean skip = !filter.isEmpty() && (!filter.mayMatch(entry) || !filter.mayMatch(statistics.known(entry)));
            if (skip) {
                skipped++;
            } else {
                if (read == maxShardsPerPage) {
                    return new Page(items, Optional.of(new Cursor(shard, row)), read, skipped);
                }
                read++;
                List<SampleRow> rows = access.contents(entry).rows();
                for (; row < rows.size(); row++) {
                    if (filter.matches(spec, rows.get(row))) {
                        if (items.size() == size) {
                            return new Page(items, Optional.of(new Cursor(shard, row)), read, skipped);
                        }
                        items.add(new Item(entry, row, rows.get(row)));
                    }
                }
            }
            shard++;
            row = 0;
        }
        return new Page(items, Optional.empty(), read, skipped);
    }
}
