package io.shardflow.dataset.log;

import java.time.Instant;
import java.util.Objects;

/**
 * What one commit-log entry says about itself, without its shards: enough to list the history of a
 * dataset version. Checkpoints keep one per snapshot, so history needs no entry reads either.
 *
 * @param addedShardCount how many shards entry {@code snapshotId} added
 */
public record CommitInfo(long snapshotId, String committer, Instant committedAt, int addedShardCount) {

    public CommitInfo {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshotId must be >= 1, got " + snapshotId);
        }
        Objects.requireNonNull(committer, "committer");
        Objects.requireNonNull(committedAt, "committedAt");
        if (addedShardCount < 1) {
            throw new IllegalArgumentException("commit " + snapshotId + " adds " + addedShardCount + " shards; at least 1");
        }
    }

    static CommitInfo of(CommitEntry entry) {
        return new CommitInfo(entry.snapshotId(), entry.committer(), entry.committedAt(), entry.addedShards().size());
    }
}
