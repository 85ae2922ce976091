package io.shardflow.dataset.log;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link CommitLog} has read so far: entries 1..latestId applied in order, either one by one
 * or all at once from a {@link Checkpoint}. Entries are immutable once written, so this cache never
 * needs invalidating, only extending. Not thread-safe: the owning CommitLog serialises access.
 */
final class CommitLogState {

    /** A committed shard and the snapshot that added it. */
    record Located(ShardEntry entry, long snapshotId) {
    }

    private final AppendOnlyList<ShardEntry> shardsInOrder = new AppendOnlyList<>();
    private final AppendOnlyList<CommitInfo> commits = new AppendOnlyList<>();
    /** shardEnds.get(k) = number of shards in snapshot k; index 0 is the empty snapshot. */
    private final AppendOnlyList<Integer> shardEnds = new AppendOnlyList<>();
    private final Map<String, Located> byShardId = new HashMap<>();
    private final Map<String, Long> latestOffsets = new TreeMap<>();

    CommitLogState() {
        shardEnds.add(0);
    }

    /** The state a checkpoint describes; throws {@link IllegalArgumentException} if it is inconsistent. */
    static CommitLogState of(Checkpoint checkpoint) {
        CommitLogState state = new CommitLogState();
        int next = 0;
        List<ShardEntry> shards = checkpoint.shards();
        for (CommitInfo commit : checkpoint.commits()) {
            if (commit.snapshotId() != state.latestId() + 1) {
                throw new IllegalArgumentException("checkpoint " + checkpoint.snapshotId() + " lists commit "
                        + commit.snapshotId() + " after " + state.latestId());
            }
            int end = next + commit.addedShardCount();
            if (end > shards.size()) {
                throw new IllegalArgumentException("checkpoint " + checkpoint.snapshotId() + " lists more added shards ("
                        + end + " by snapshot " + commit.snapshotId() + ") than it holds (" + shards.size() + ")");
            }
            for (ShardEntry shard : shards.subList(next, end)) {
                state.add(shard, commit.snapshotId());
            }
            state.commits.add(commit);
            state.shardEnds.add(end);
            next = end;
        }
        if (state.latestId() != checkpoint.snapshotId() || next != shards.size()) {
            throw new IllegalArgumentException("checkpoint " + checkpoint.snapshotId() + " covers snapshots 1.."
                    + state.latestId() + " and " + next + " of its " + shards.size() + " shards");
        }
        state.latestOffsets.putAll(checkpoint.sourceOffsets());
        return state;
    }

    long latestId() {
        return shardEnds.size() - 1L;
    }

    /** Appends the next entry; the caller has checked it is {@code latestId() + 1}. */
    void apply(CommitEntry entry) {
        if (entry.snapshotId() != latestId() + 1) {
            throw new IllegalStateException("commit " + entry.snapshotId() + " applied after " + latestId());
        }
        for (ShardEntry shard : entry.addedShards()) {
            add(shard, entry.snapshotId());
        }
        commits.add(CommitInfo.of(entry));
        shardEnds.add(shardsInOrder.size());
        latestOffsets.putAll(entry.sourceOffsets());
    }

    private void add(ShardEntry shard, long snapshotId) {
        Located previous = byShardId.putIfAbsent(shard.shardId(), new Located(shard, snapshotId));
        if (previous != null) {
            // Only a buggy or foreign writer can produce this: CommitLog never re-adds a shard.
            throw new IllegalStateException("commit log is corrupt: shard " + shard.shardId() + " is added by snapshot "
                    + previous.snapshotId() + " and again by snapshot " + snapshotId);
        }
        shardsInOrder.add(shard);
    }

    Located find(String shardId) {
        return byShardId.get(shardId);
    }

    /** Shards of snapshot {@code snapshotId}: an immutable view, not a copy. */
    List<ShardEntry> shardsOf(long snapshotId) {
        return shardsInOrder.prefix(shardEnds.get(Math.toIntExact(snapshotId)));
    }

    /** Shards added by entry {@code snapshotId} (>= 1). */
    List<ShardEntry> addedBy(long snapshotId) {
        int id = Math.toIntExact(snapshotId);
        return shardsInOrder.range(shardEnds.get(id - 1), shardEnds.get(id));
    }

    /** Commits 1..latestId. */
    List<CommitInfo> commits() {
        return commits.prefix(commits.size());
    }

    Map<String, Long> latestOffsets() {
        return Collections.unmodifiableMap(new TreeMap<>(latestOffsets));
    }

    /** Everything read so far as a checkpoint of snapshot {@link #latestId()} (>= 1). */
    Checkpoint toCheckpoint(String dataset, String version) {
        return new Checkpoint(Checkpoint.FORMAT_VERSION, dataset, version, latestId(), latestOffsets(), commits(),
                shardsOf(latestId()));
    }
}
