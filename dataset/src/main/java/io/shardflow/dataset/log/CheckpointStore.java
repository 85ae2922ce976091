package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds, reads and writes the checkpoints of one dataset version. Checkpoints are an optimisation
 * over the log, never a second truth: one that cannot be read or disagrees with itself is skipped
 * with a warning and the reader falls back to log entries.
 *
 * <p>Checkpoints are incremental (format version 2): the one at {@code n} holds entries
 * {@code base+1..n} and names its base, another checkpoint. With {@code j = n / interval}, the base
 * is {@code j - span(j)} intervals back, where {@code span(j)} is the largest power of
 * {@value #FANOUT} dividing {@code j}, capped at {@value #FANOUT}^({@value #LEVELS} - 1): a bounded
 * log-structured merge. Each entry is held by at most one checkpoint per level, so all checkpoints
 * together hold at most {@value #LEVELS} copies of the log (linear in its length); the chain from
 * checkpoint {@code j} to the start has at most {@code (LEVELS - 1) * (FANOUT - 1) + j / FANOUT^(LEVELS-1)}
 * links (dataset/FORMAT.md, "Checkpoints", has the arithmetic). Readers follow whatever base a
 * checkpoint names, so older layouts (the binary chains written before, version-1 whole
 * checkpoints, which end a chain) still open.
 */
final class CheckpointStore {

    private static final Logger log = LoggerFactory.getLogger(CheckpointStore.class);

    /** How many checkpoints of one level a checkpoint of the next level merges. */
    static final int FANOUT = 4;
    /** Levels of the merge; the top one chains on its own, one link per {@code FANOUT^(LEVELS-1)} intervals. */
    static final int LEVELS = 6;

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final CheckpointCodec wholeCodec = new CheckpointCodec();
    private final SegmentCodec segmentCodec = new SegmentCodec();

    CheckpointStore(ObjectStore store, String dataset, String version) {
        this.store = store;
        this.dataset = dataset;
        this.version = version;
    }

    /**
     * The state of the newest checkpoint with id {@code <= atMost}: one LIST with max-keys 1 (keys sort
     * newest first), then one GET per link of its chain. Empty if there is none or it is unusable.
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
        try {
            return Optional.of(load(id.getAsLong()));
        } catch (RuntimeException e) {
            log.warn("Ignoring unusable checkpoint {}: {}; reading log entries instead", key, e.getMessage());
            return Optional.empty();
        }
    }

    /** The id of the newest checkpoint with id {@code <= atMost}: one LIST with max-keys 1. */
    OptionalLong newestIdAtMost(long atMost) {
        String prefix = DatasetLayout.checkpointPrefix(dataset, version);
        List<String> keys = store.list(prefix, DatasetLayout.checkpointSearchStart(dataset, version, atMost), 1);
        if (keys.isEmpty()) {
            return OptionalLong.empty();
        }
        OptionalLong id = DatasetLayout.checkpointIdOf(dataset, version, keys.get(0));
        return id.isPresent() && id.getAsLong() <= atMost ? id : OptionalLong.empty();
    }

    /** The chain of checkpoint {@code id} replayed into a state; throws if a link is missing or invalid. */
    CommitLogState load(long id) {
        Deque<CheckpointSegment> segments = new ArrayDeque<>();
        CommitLogState state = null;
        long next = id;
        while (next > 0 && state == null) {
            String key = DatasetLayout.checkpointKey(dataset, version, next);
            byte[] bytes = store.get(key).orElseThrow(() -> new IllegalArgumentException(key + " is missing"));
            if (SegmentCodec.formatVersionOf(bytes) == Checkpoint.FORMAT_VERSION) {
                Checkpoint whole = wholeCodec.decode(bytes);
                checkOwner(whole.dataset(), whole.version(), whole.snapshotId(), next);
                state = CommitLogState.of(whole);
            } else {
                CheckpointSegment segment = segmentCodec.decode(bytes);
                checkOwner(segment.dataset(), segment.version(), segment.snapshotId(), next);
                segments.push(segment);
                next = segment.base();
            }
        }
        CommitLogState replayed = state == null ? new CommitLogState() : state;
        while (!segments.isEmpty()) {
            segments.pop().entries().forEach(replayed::apply);
        }
        log.debug("Loaded checkpoint {} of {}/{}", id, dataset, version);
        return replayed;
    }

    private void checkOwner(String d, String v, long snapshotId, long expected) {
        if (snapshotId != expected || !d.equals(dataset) || !v.equals(version)) {
            throw new IllegalArgumentException("checkpoint " + expected + " describes snapshot " + snapshotId + " of "
                    + d + "/" + v);
        }
    }

    /** The base the checkpoint at {@code snapshotId} builds on, for a committer checkpointing every {@code interval}. */
    static long baseOf(long snapshotId, int interval) {
        long j = snapshotId / interval;
        long span = 1;
        for (int level = 1; level < LEVELS && j % (span * FANOUT) == 0; level++) {
            span *= FANOUT;
        }
        return (j - span) * interval;
    }

    /**
     * Writes the checkpoint of {@code state} create-only. Another writer may have written it first:
     * it then holds the same entries (they are a function of the log), which is checked. Never
     * throws: a missing checkpoint only makes opening slower, and the commit it follows has succeeded.
     */
    void write(CommitLogState state, int interval) {
        long id = state.latestId();
        String key = DatasetLayout.checkpointKey(dataset, version, id);
        try {
            long base = baseOf(id, interval);
            if (base > 0 && store.head(DatasetLayout.checkpointKey(dataset, version, base)).isEmpty()) {
                // Never written (a committer died before it, or another interval is in use): build on
                // the newest one before it, as a reader would, so the segment stays short.
                base = newestIdAtMost(base).orElse(0);
            }
            if (base < state.summarisedUpTo()) {
                // Entries from a version-1 checkpoint cannot be re-encoded; that checkpoint ends the chain.
                base = state.summarisedUpTo();
            }
            CheckpointSegment segment = new CheckpointSegment(dataset, version, id, base, state.entries(base, id));
            long started = System.nanoTime();
            byte[] bytes = segmentCodec.encode(segment);
            if (store.putIfAbsent(key, bytes) == PutOutcome.CREATED) {
                log.info("Wrote checkpoint {} (entries {}..{}, {} bytes) in {} ms", key, base + 1, id, bytes.length,
                        (System.nanoTime() - started) / 1_000_000);
                return;
            }
            CommitLogState existing = load(id);
            if (existing.shardsOf(id).equals(state.shardsOf(id))) {
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
