package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.Names;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit log of one dataset version: entries {@code log/1..n}, each adding shards and so
 * making a new immutable snapshot (invariant 5).
 *
 * <p>Concurrency comes from the store, not from locks: entry {@code n+1} is written create-only,
 * so of several committers racing for the same id exactly one wins; the others re-read the log,
 * drop the shards the winner already committed, and try {@code n+2}. Any number of processes may
 * commit to the same log.
 *
 * <p>Idempotency: committing a shard id that is already in the log with the same SHA-256 is a
 * replay and is skipped; with a different SHA-256 it is refused ({@link ShardConflictException}).
 * So a committer that crashed, or whose write timed out after the server stored it, simply
 * commits again.
 *
 * <p>Thread-safe. Entries read are cached forever (they never change).
 */
public final class CommitLog {

    private static final Logger log = LoggerFactory.getLogger(CommitLog.class);

    static final int MAX_ATTEMPTS = 20;
    private static final int LIST_PAGE = 1000;

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final Clock clock;
    private final CommitLogCodec codec = new CommitLogCodec();
    private final CommitLogState state = new CommitLogState();
    /** Last log key read or written: the start-after cursor for finding new entries. */
    private String cursor;
    private boolean readOnce;

    public CommitLog(ObjectStore store, String dataset, String version, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.dataset = Names.requireDatasetName("dataset name", dataset);
        this.version = Names.requireDatasetName("dataset version", version);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Reads new entries and returns the newest snapshot. */
    public synchronized Snapshot latest() {
        refresh();
        return snapshotFromState(state.latestId());
    }

    /** The snapshot with this id; throws {@link IllegalArgumentException} if it does not exist (yet). */
    public synchronized Snapshot snapshot(long snapshotId) {
        if (snapshotId < 0) {
            throw new IllegalArgumentException("snapshot ids are >= 0, got " + snapshotId);
        }
        if (snapshotId > state.latestId()) {
            refresh();
        }
        if (snapshotId > state.latestId()) {
            throw new IllegalArgumentException("snapshot " + snapshotId + " of " + dataset + "/" + version
                    + " does not exist; the latest is " + state.latestId());
        }
        return snapshotFromState(snapshotId);
    }

    /**
     * The entry of a committed shard as far as this instance has read the log, without reading it
     * again: a cheap check for a replay. A stale answer is safe, since {@link #commit} reads the log
     * before deciding.
     */
    public synchronized Optional<ShardEntry> committedShard(String shardId) {
        if (!readOnce) {
            refresh();
            readOnce = true;
        }
        CommitLogState.Located found = state.find(shardId);
        return found == null ? Optional.empty() : Optional.of(found.entry());
    }

    /**
     * The source offsets recorded by the log, each key's value from the newest entry that has it.
     * A restarted committer compares them with its own position.
     */
    public synchronized Map<String, Long> latestSourceOffsets() {
        refresh();
        return state.latestOffsets();
    }

    /**
     * Commits the shards not yet in the log as the next snapshot.
     *
     * @param sourceOffsets stored with the entry (not with an "already committed" result)
     * @throws ShardConflictException     a shard id is committed with a different SHA-256
     * @throws CommitContentionException  lost the race {@value #MAX_ATTEMPTS} times; nothing written
     */
    public synchronized CommitResult commit(List<ShardEntry> shards, String committer, Map<String, Long> sourceOffsets) {
        validate(shards);
        Objects.requireNonNull(sourceOffsets, "sourceOffsets");
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            refresh();
            List<ShardEntry> fresh = new ArrayList<>();
            List<ShardEntry> already = new ArrayList<>();
            long holdingSnapshot = 0;
            for (ShardEntry shard : shards) {
                CommitLogState.Located existing = state.find(shard.shardId());
                if (existing == null) {
                    fresh.add(shard);
                } else if (existing.entry().sha256().equals(shard.sha256())) {
                    already.add(existing.entry());
                    holdingSnapshot = Math.max(holdingSnapshot, existing.snapshotId());
                } else {
                    throw new ShardConflictException(shard.shardId(), existing.entry().sha256(), shard.sha256(),
                            existing.snapshotId());
                }
            }
            if (fresh.isEmpty()) {
                log.info("All {} shards are already committed to {}/{} (up to snapshot {})", already.size(), dataset,
                        version, holdingSnapshot);
                return new CommitResult(holdingSnapshot, List.of(), already);
            }
            long next = state.latestId() + 1;
            CommitEntry entry = new CommitEntry(CommitEntry.FORMAT_VERSION, next, fresh, committer, sourceOffsets,
                    clock.instant());
            String key = DatasetLayout.commitKey(dataset, version, next);
            if (store.putIfAbsent(key, codec.encode(entry)) == PutOutcome.CREATED) {
                state.apply(entry);
                cursor = key;
                log.info("Committed snapshot {} of {}/{}: {} new shards, {} already committed", next, dataset, version,
                        fresh.size(), already.size());
                return new CommitResult(next, fresh, already);
            }
            log.info("Snapshot {} of {}/{} was taken by another committer (attempt {} of {}); re-reading the log",
                    next, dataset, version, attempt, MAX_ATTEMPTS);
        }
        throw new CommitContentionException(dataset, version, MAX_ATTEMPTS);
    }

    private void validate(List<ShardEntry> shards) {
        if (shards == null || shards.isEmpty()) {
            throw new IllegalArgumentException("nothing to commit: the shard list is empty");
        }
        Set<String> ids = new HashSet<>();
        for (ShardEntry shard : shards) {
            ShardId id = shard.id();
            if (!id.dataset().equals(dataset) || !id.version().equals(version)) {
                throw new IllegalArgumentException("shard " + shard.shardId() + " cannot be committed to the log of "
                        + dataset + "/" + version);
            }
            if (!ids.add(shard.shardId())) {
                throw new IllegalArgumentException("shard " + shard.shardId() + " appears twice in one commit");
            }
        }
    }

    /** Reads log entries after the cursor, checking that ids follow on without gaps. */
    private void refresh() {
        String prefix = DatasetLayout.commitPrefix(dataset, version);
        while (true) {
            List<String> keys = store.list(prefix, cursor, LIST_PAGE);
            for (String key : keys) {
                OptionalLong id = DatasetLayout.snapshotIdOf(dataset, version, key);
                if (id.isEmpty()) {
                    log.warn("Ignoring {}: not a commit-log entry name", key);
                    cursor = key;
                    continue;
                }
                long expected = state.latestId() + 1;
                if (id.getAsLong() != expected) {
                    throw new IllegalStateException("commit log of " + dataset + "/" + version + " has entry "
                            + id.getAsLong() + " where " + expected + " was expected (entries missing or deleted)");
                }
                byte[] bytes = store.get(key).orElseThrow(() -> new IllegalStateException(
                        "commit-log entry " + key + " was listed but cannot be read"));
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
                cursor = key;
            }
            if (keys.size() < LIST_PAGE) {
                return;
            }
        }
    }

    private Snapshot snapshotFromState(long snapshotId) {
        return new Snapshot(dataset, version, snapshotId, state.shardsOf(snapshotId));
    }
}
