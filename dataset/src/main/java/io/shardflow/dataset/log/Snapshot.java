package io.shardflow.dataset.log;

import java.util.List;

/**
 * An immutable view of a dataset version: the shards of commits 1..snapshotId, in commit order.
 * Snapshot 0 is the empty dataset. A snapshot id pins its shard set forever (docs/ARCHITECTURE.md, invariant 5).
 *
 * <p>Snapshots made by {@link CommitLog} share the log's append-only shard array instead of copying
 * it, so asking for the latest snapshot of a large log again and again costs nothing.
 */
public record Snapshot(String dataset, String version, long snapshotId, List<ShardEntry> shards) {

    public Snapshot {
        shards = shards instanceof AppendOnlyList.View<ShardEntry> ? shards : List.copyOf(shards);
    }

    public static Snapshot empty(String dataset, String version) {
        return new Snapshot(dataset, version, 0, List.of());
    }

    public long sampleCount() {
        return shards.stream().mapToLong(ShardEntry::sampleCount).sum();
    }

    public long bytes() {
        return shards.stream().mapToLong(ShardEntry::bytes).sum();
    }
}
