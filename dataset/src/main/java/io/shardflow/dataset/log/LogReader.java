package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.ObjectStore;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a commit log into a {@link CommitLogState}: the first read from the newest usable
 * checkpoint (or a listing of the log when there is none), later reads entry by entry until a 404,
 * jumping to a checkpoint when far behind. Not thread-safe: the owning {@link CommitLog} serialises
 * access.
 */
final class LogReader {

    private static final Logger log = LoggerFactory.getLogger(LogReader.class);

    /** A read that finds the log this many entries ahead looks for a checkpoint to skip them. */
    static final int CATCH_UP_THRESHOLD = 32;
    private static final int LIST_PAGE = 1000;

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final boolean readCheckpoints;
    private final CheckpointStore checkpoints;
    private final CommitLogCodec codec = new CommitLogCodec();
    private CommitLogState state = new CommitLogState();
    /** Whether the first read, which starts from a checkpoint, has happened. */
    private boolean opened;

    LogReader(ObjectStore store, String dataset, String version, CheckpointStore checkpoints, boolean readCheckpoints) {
        this.store = store;
        this.dataset = dataset;
        this.version = version;
        this.checkpoints = checkpoints;
        this.readCheckpoints = readCheckpoints;
    }

    /** What has been read so far (a new object after a jump to a checkpoint: do not hold on to it). */
    CommitLogState state() {
        return state;
    }

    /** Reads up to entry {@code snapshotId}, which must exist (expired or not). */
    void requireRead(long snapshotId) {
        if (snapshotId > state.latestId()) {
            readUpTo(snapshotId);
        }
        if (snapshotId > state.latestId()) {
            throw new IllegalArgumentException("snapshot " + snapshotId + " of " + dataset + "/" + version
                    + " does not exist; the latest is " + state.latestId());
        }
    }

    /** Reads every entry not read yet. */
    void refresh() {
        readUpTo(Long.MAX_VALUE);
    }

    /**
     * Reads entries up to {@code target}. The first read starts from the newest checkpoint at or before
     * {@code target}, or, if there is none, lists the log from the start (checking that ids follow on
     * without gaps). Every later read fetches the next entries by id until one is missing: the log is
     * contiguous, so polling costs one GET (a 404) when nothing is new, whatever the log's length,
     * where a LIST costs what the server's listing of a long prefix costs. A read that finds itself
     * more than {@value #CATCH_UP_THRESHOLD} entries behind jumps to a checkpoint.
     */
    void readUpTo(long target) {
        boolean mayBeFarBehind = true;
        if (!opened) {
            // A store error on the way leaves opened false: the next call opens again, from where this one got.
            Optional<CommitLogState> checkpoint = readCheckpoints ? checkpoints.newestAtMost(target) : Optional.empty();
            if (checkpoint.isEmpty() || checkpoint.get().latestId() <= state.latestId()) {
                listFromStart(target);
                opened = true;
                return;
            }
            adopt(checkpoint.get());
            opened = true;
            mayBeFarBehind = false; // it is the newest checkpoint: the log runs at most an interval ahead
        }
        int read = 0;
        while (state.latestId() < target) {
            long next = state.latestId() + 1;
            String key = DatasetLayout.commitKey(dataset, version, next);
            Optional<byte[]> bytes = store.get(key);
            if (bytes.isEmpty()) {
                return;
            }
            apply(key, next, bytes.get());
            if (++read == 2 && mayBeFarBehind && readCheckpoints && state.latestId() < target) {
                // Two new entries in a row: no longer a poll that finds one commit. Is it a long way?
                jumpIfFarBehind(target);
            }
        }
    }

    /** One HEAD tells whether the log runs far ahead; if so, a checkpoint saves the GETs in between. */
    private void jumpIfFarBehind(long target) {
        long ahead = state.latestId() + CATCH_UP_THRESHOLD;
        if (ahead > target || store.head(DatasetLayout.commitKey(dataset, version, ahead)).isEmpty()) {
            return;
        }
        checkpoints.newestAtMost(target).filter(s -> s.latestId() > state.latestId()).ifPresent(this::adopt);
    }

    /** Lists and reads the entries after those read so far, up to target: for a log with no checkpoint to start from. */
    private void listFromStart(long target) {
        String prefix = DatasetLayout.commitPrefix(dataset, version);
        String cursor = state.latestId() == 0 ? null : DatasetLayout.commitKey(dataset, version, state.latestId());
        while (state.latestId() < target) {
            int page = (int) Math.min(LIST_PAGE, target - state.latestId());
            List<String> keys = store.list(prefix, cursor, page);
            for (String key : keys) {
                cursor = key;
                OptionalLong id = DatasetLayout.snapshotIdOf(dataset, version, key);
                if (id.isEmpty()) {
                    log.warn("Ignoring {}: not a commit-log entry name", key);
                    continue;
                }
                long expected = state.latestId() + 1;
                if (id.getAsLong() != expected) {
                    throw new IllegalStateException("commit log of " + dataset + "/" + version + " has entry "
                            + id.getAsLong() + " where " + expected + " was expected (entries missing or deleted)");
                }
                apply(key, expected, store.get(key).orElseThrow(() -> new IllegalStateException(
                        "commit-log entry " + key + " was listed but cannot be read")));
            }
            if (keys.size() < page) {
                return;
            }
        }
    }

    private void apply(String key, long expected, byte[] bytes) {
        CommitEntry entry;
        try {
            entry = codec.decode(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("commit-log entry " + key + " is unreadable: " + e.getMessage(), e);
        }
        if (entry.snapshotId() != expected) {
            throw new IllegalStateException("commit-log entry " + key + " says it is snapshot " + entry.snapshotId());
        }
        state.apply(entry);
    }

    /** Continues from a checkpoint's state, which must extend what was read so far. */
    private void adopt(CommitLogState loaded) {
        long read = state.latestId();
        if (read > 0 && !loaded.shardsOf(read).equals(state.shardsOf(read))) {
            throw new IllegalStateException("checkpoint " + loaded.latestId() + " of " + dataset + "/" + version
                    + " disagrees with log entries 1.." + read + ": verify the dataset version");
        }
        state = loaded;
    }

}
