package io.shardflow.sink;

import io.shardflow.dataset.store.ObjectStore;

/**
 * Where a test harness can watch shard-sink step through its commit protocol (docs/ARCHITECTURE.md
 * § 4 Commit protocol) and stand between it and the object store. The default, {@link #NONE}, does
 * nothing; only code that builds the sink itself ({@link ShardSinkApp#start(java.util.Map, SinkHook)})
 * can install another, no setting can. The chaos harness uses it to crash or freeze a sink inside a
 * chosen window.
 */
public interface SinkHook {

    /** Does nothing: production. */
    SinkHook NONE = new SinkHook() {
    };

    /** The windows of the commit protocol, in order; each is a place where a crash must not lose or double a sample. */
    enum Step {
        /** A record was appended to an open shard's spool; its offset is not consumed yet. */
        RECORD_SPOOLED,
        /** A sealed shard's HDF5 file is built on local disk, nothing is uploaded. */
        SHARD_BUILT,
        /** Every shard of a commit is uploaded; the commit-log entry is not written. */
        SHARDS_UPLOADED,
        /** The commit-log entry is durable; the consumer offsets are not committed. */
        COMMIT_WRITTEN
    }

    /** The sink has just passed {@code step}. */
    default void passed(Step step) {
    }

    /** The store shard objects are uploaded through; by default {@code store} itself. */
    default ObjectStore uploadStore(ObjectStore store) {
        return store;
    }
}
