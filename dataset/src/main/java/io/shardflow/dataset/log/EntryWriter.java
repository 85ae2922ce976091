package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;

/**
 * Writes one log entry create-only at its id and, when that id is due, the checkpoint after it.
 * Losing the race for the id is not an error: the caller re-reads and plans again.
 */
final class EntryWriter {

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final int checkpointInterval;
    private final CheckpointStore checkpoints;
    private final CommitLogCodec codec = new CommitLogCodec();

    EntryWriter(ObjectStore store, String dataset, String version, int checkpointInterval, CheckpointStore checkpoints) {
        this.store = store;
        this.dataset = dataset;
        this.version = version;
        this.checkpointInterval = checkpointInterval;
        this.checkpoints = checkpoints;
    }

    /**
     * Writes {@code entry} (the next after {@code state}'s latest) and applies it to {@code state};
     * false, with nothing changed, if another committer took its id first.
     */
    boolean write(CommitEntry entry, CommitLogState state) {
        String key = DatasetLayout.commitKey(dataset, version, entry.snapshotId());
        if (store.putIfAbsent(key, codec.encode(entry)) != PutOutcome.CREATED) {
            return false;
        }
        state.apply(entry);
        if (checkpointInterval > 0 && entry.snapshotId() % checkpointInterval == 0) {
            checkpoints.write(state, checkpointInterval);
        }
        return true;
    }
}
