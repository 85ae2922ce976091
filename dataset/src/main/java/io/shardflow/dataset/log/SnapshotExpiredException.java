package io.shardflow.dataset.log;

/** A snapshot that an expire entry took out of the live view: its objects may be gone. */
public final class SnapshotExpiredException extends IllegalArgumentException {

    public SnapshotExpiredException(String dataset, String version, long snapshotId) {
        super("snapshot " + snapshotId + " of " + dataset + "/" + version
                + " has expired (dataset expire); its shards may be deleted. Pin a kept snapshot or a tag instead");
    }
}
