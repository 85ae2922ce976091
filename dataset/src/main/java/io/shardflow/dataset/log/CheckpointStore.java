package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds, reads and writes the checkpoints of one dataset version. Checkpoints are an optimisation
 * over the log, never a second truth: one that cannot be read or disagrees with itself is skipped
 * with a warning and the reader falls back to log entries.
 */
final class CheckpointStore {

    private static final Logger log = LoggerFactory.getLogger(CheckpointStore.class);

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final CheckpointCodec codec = new CheckpointCodec();

    CheckpointStore(ObjectStore store, String dataset, String version) {
        this.store = store;
        this.dataset = dataset;
        this.version = version;
    }

    /**
     * The state of the newest checkpoint with id {@code <= atMost}: one LIST with max-keys 1 (keys sort
     * newest first) and one GET. Empty if there is none or it is unusable.
     */
    Optional<CommitLogState> newestAtMost(long atMost) {
        String prefix = DatasetLayout.checkpointPrefix(dataset, version);
        String startAfter = atMost == Long.MAX_VALUE ? null : DatasetLayout.checkpointSearchStart(dataset, version, atMost);
        List<String> keys = store.list(prefix, startAfter, 1);
        if (keys.isEmpty()) {
            return Optional.empty();
        }
        String key = keys.get(0);
        OptionalLong id = DatasetLayout.checkpointIdOf(dataset, version, key);
        if (id.isEmpty() || id.getAsLong() > atMost) {
            log.warn("Ignoring {}: not a checkpoint of {}/{} at or before snapshot {}", key, dataset, version, atMost);
            return Optional.empty();
        }
        Optional<byte[]> bytes = store.get(key);
        if (bytes.isEmpty()) {
            log.warn("Checkpoint {} was listed but cannot be read; reading log entries instead", key);
            return Optional.empty();
        }
        try {
            Checkpoint checkpoint = codec.decode(bytes.get());
            if (checkpoint.snapshotId() != id.getAsLong() || !checkpoint.dataset().equals(dataset)
                    || !checkpoint.version().equals(version)) {
                throw new IllegalArgumentException("it describes snapshot " + checkpoint.snapshotId() + " of "
                        + checkpoint.dataset() + "/" + checkpoint.version());
            }
            CommitLogState state = CommitLogState.of(checkpoint);
            log.debug("Loaded checkpoint {} ({} shards)", key, checkpoint.shards().size());
            return Optional.of(state);
        } catch (RuntimeException e) {
            log.warn("Ignoring unusable checkpoint {}: {}; reading log entries instead", key, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Writes the checkpoint of {@code state} create-only. Another writer may have written it first:
     * its content must then be the same (it is a function of the log), which is checked. Never throws:
     * a missing checkpoint only makes opening slower, and the commit it follows has succeeded.
     */
    void write(CommitLogState state) {
        Checkpoint checkpoint = state.toCheckpoint(dataset, version);
        String key = DatasetLayout.checkpointKey(dataset, version, checkpoint.snapshotId());
        try {
            long started = System.nanoTime();
            byte[] bytes = codec.encode(checkpoint);
            if (store.putIfAbsent(key, bytes) == PutOutcome.CREATED) {
                log.info("Wrote checkpoint {} ({} shards, {} bytes) in {} ms", key, checkpoint.shards().size(),
                        bytes.length, (System.nanoTime() - started) / 1_000_000);
                return;
            }
            Checkpoint existing = store.get(key).map(codec::decode).orElse(null);
            if (checkpoint.equals(existing)) {
                log.debug("Checkpoint {} was already written by another committer, with the same content", key);
            } else {
                log.error("Checkpoint {} already exists with content that differs from the log entries it summarises; "
                        + "readers that load it may see a wrong snapshot: check it with 'shardflow dataset verify'", key);
            }
        } catch (RuntimeException e) {
            log.warn("Could not write checkpoint {} (the commit itself succeeded): {}", key, e.toString());
        }
    }
}
