package io.shardflow.dataset.log;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link CommitLog} has read so far: entries 1..latestId applied in order. Entries are
 * immutable once written, so this cache never needs invalidating, only extending. Not thread-safe:
 * the owning CommitLog serialises access.
 */
final class CommitLogState {

    /** A committed shard and the snapshot that added it. */
    record Located(ShardEntry entry, long snapshotId) {
    }

    private final List<ShardEntry> shardsInOrder = new ArrayList<>();
    /** shardEnds.get(k) = number of shards in snapshot k; index 0 is the empty snapshot. */
    private final List<Integer> shardEnds = new ArrayList<>(List.of(0));
    private final Map<String, Located> byShardId = new HashMap<>();
    private final Map<String, Long> latestOffsets = new TreeMap<>();

    long latestId() {
        return shardEnds.size() - 1L;
    }

    /** Appends the next entry; the caller has checked it is {@code latestId() + 1}. */
    void apply(CommitEntry entry) {
        if (entry.snapshotId() != latestId() + 1) {
            throw new IllegalStateException("commit " + entry.snapshotId() + " applied after " + latestId());
        }
        for (ShardEntry shard : entry.addedShards()) {
            Located previous = byShardId.putIfAbsent(shard.shardId(), new Located(shard, entry.snapshotId()));
            if (previous != null) {
                // Only a buggy or foreign writer can produce this: CommitLog never re-adds a shard.
                throw new IllegalStateException("commit log is corrupt: shard " + shard.shardId() + " is added by snapshot "
                        + previous.snapshotId() + " and again by snapshot " + entry.snapshotId());
            }
            shardsInOrder.add(shard);
        }
        shardEnds.add(shardsInOrder.size());
        latestOffsets.putAll(entry.sourceOffsets());
    }

    Located find(String shardId) {
        return byShardId.get(shardId);
    }

    List<ShardEntry> shardsOf(long snapshotId) {
        return Collections.unmodifiableList(shardsInOrder.subList(0, shardEnds.get(Math.toIntExact(snapshotId))));
    }

    Map<String, Long> latestOffsets() {
        return Collections.unmodifiableMap(new TreeMap<>(latestOffsets));
    }
}
