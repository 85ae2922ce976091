package io.shardflow.dataset.log;

import java.time.Instant;
import java.util.Objects;

/**
 * What one commit-log entry says about itself, without its shards: enough to list the history of a
 * dataset version. Checkpoints keep the entries themselves, so history needs no entry reads either.
 *
 * @param addedShardCount   how many shards entry {@code snapshotId} added
 * @param removedShardCount how many shards it removed (replace and delete entries only)
 */
public record CommitInfo(long snapshotId, String committer, Instant committedAt, int addedShardCount,
                         EntryKind kind, int removedShardCount) {

    public CommitInfo {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshotId must be >= 1, got " + snapshotId);
        }
        Objects.requireNonNull(committer, "committer");
        Objects.requireNonNull(committedAt, "committedAt");
        Objects.requireNonNull(kind, "kind");
        if (kind == EntryKind.APPEND && addedShardCount < 1) {
            throw new IllegalArgumentException("commit " + snapshotId + " adds " + addedShardCount + " shards; at least 1");
        }
        if (addedShardCount < 0 || removedShardCount < 0) {
            throw new IllegalArgumentException("commit " + snapshotId + " has a negative shard count");
        }
    }

    /** An append entry's summary. */
    public CommitInfo(long snapshotId, String committer, Instant committedAt, int addedShardCount) {
        this(snapshotId, committer, committedAt, addedShardCount, EntryKind.APPEND, 0);
    }

    static CommitInfo of(CommitEntry entry) {
        return new CommitInfo(entry.snapshotId(), entry.committer(), entry.committedAt(), entry.addedShards().size(),
                entry.kind(), entry.removedShards().size());
    }
}
