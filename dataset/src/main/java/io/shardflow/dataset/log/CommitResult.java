package io.shardflow.dataset.log;

import java.util.List;

/**
 * Outcome of {@link CommitLog#commit}.
 *
 * @param snapshotId       the snapshot that holds every requested shard: the new one, or, when
 *                         nothing was new, the latest of those that already held them
 * @param committed        shards this call added
 * @param alreadyCommitted shards that were already in the log with the same bytes (an idempotent replay)
 */
public record CommitResult(long snapshotId, List<ShardEntry> committed, List<ShardEntry> alreadyCommitted) {

    public CommitResult {
        committed = List.copyOf(committed);
        alreadyCommitted = List.copyOf(alreadyCommitted);
    }

    /** True when every shard was already committed and no log entry was written. */
    public boolean nothingNew() {
        return committed.isEmpty();
    }
}
