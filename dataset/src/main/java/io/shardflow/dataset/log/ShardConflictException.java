package io.shardflow.dataset.log;

/**
 * A shard id is already committed with different bytes. Shards are deterministic (docs/ARCHITECTURE.md, invariant 2), so
 * this means a bug or a changed writer (e.g. another jHDF version or platform); committing would
 * make one shard id mean two different things, so the commit is refused.
 */
public class ShardConflictException extends RuntimeException {

    private final String shardId;

    public ShardConflictException(String shardId, String committedSha256, String offeredSha256, long snapshotId) {
        super("shard " + shardId + " is already committed in snapshot " + snapshotId + " with sha256 "
                + committedSha256 + ", but the shard offered now has sha256 " + offeredSha256
                + ": the deterministic-bytes invariant is broken");
        this.shardId = shardId;
    }

    public String shardId() {
        return shardId;
    }
}
