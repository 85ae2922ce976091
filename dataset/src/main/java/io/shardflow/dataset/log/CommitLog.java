package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.Names;
import io.shardflow.dataset.store.ObjectStore;
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
 * making a new immutable snapshot (docs/ARCHITECTURE.md, invariant 5).
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
 * <p>Checkpoints: after committing snapshot {@code n} with {@code n % checkpointInterval == 0}, the
 * committer also writes {@code checkpoints/…n.json.gz}, which with the checkpoints it builds on holds
 * what entries {@code 1..n} say ({@link CheckpointStore}). Opening a log then costs one LIST (max-keys
 * 1) for the newest checkpoint, one GET per link of its chain and one GET per later entry plus one (a
 * 404) to find the end, instead of one GET per entry: a few dozen requests for 100,000 commits. An instance that finds itself far behind jumps to a checkpoint too.
 *
 * <p>Reading is {@link LogReader}'s job, writing an entry (and the checkpoint after it)
 * {@link EntryWriter}'s; this class plans commits and answers questions about snapshots.
 *
 * <p>Thread-safe. Entries read are cached forever (they never change). Snapshots share that cache
 * instead of copying it, so {@link #latest()} costs one GET (a 404) when nothing is new.
 */
public final class CommitLog {

    private static final Logger log = LoggerFactory.getLogger(CommitLog.class);

    static final int MAX_ATTEMPTS = 20;
    /** Default {@code checkpointInterval}; see dataset/FORMAT.md for the measurement behind it. */
    public static final int DEFAULT_CHECKPOINT_INTERVAL = 10;

    private final String dataset;
    private final String version;
    private final Clock clock;
    private final LogReader reader;
    private final EntryWriter writer;
    private boolean readOnce;

    /** A log that writes a checkpoint every {@value #DEFAULT_CHECKPOINT_INTERVAL} commits. */
    public CommitLog(ObjectStore store, String dataset, String version, Clock clock) {
        this(store, dataset, version, clock, DEFAULT_CHECKPOINT_INTERVAL);
    }

    /**
     * @param checkpointInterval this instance writes a checkpoint after committing a snapshot whose id
     *                           is a multiple of it; 0 writes none (checkpoints are read either way)
     */
    public CommitLog(ObjectStore store, String dataset, String version, Clock clock, int checkpointInterval) {
        this(store, dataset, version, clock, checkpointInterval, true);
    }

    private CommitLog(ObjectStore store, String dataset, String version, Clock clock, int checkpointInterval,
                      boolean readCheckpoints) {
        Objects.requireNonNull(store, "store");
        this.dataset = Names.requireDatasetName("dataset name", dataset);
        this.version = Names.requireDatasetName("dataset version", version);
        this.clock = Objects.requireNonNull(clock, "clock");
        if (checkpointInterval < 0) {
            throw new IllegalArgumentException("checkpointInterval must be >= 0 (0 = write none), got " + checkpointInterval);
        }
        CheckpointStore checkpoints = new CheckpointStore(store, this.dataset, this.version);
        this.reader = new LogReader(store, this.dataset, this.version, checkpoints, readCheckpoints);
        this.writer = new EntryWriter(store, this.dataset, this.version, checkpointInterval, checkpoints);
    }

    /**
     * A log that ignores checkpoints and reads every entry (one GET each) and writes none: slow, but
     * it depends on nothing but the entries, so comparing its snapshots with a normal log's checks
     * the checkpoints ({@code shardflow dataset verify}).
     */
    public static CommitLog entriesOnly(ObjectStore store, String dataset, String version, Clock clock) {
        return new CommitLog(store, dataset, version, clock, 0, false);
    }

    /** Reads new entries and returns the newest snapshot. */
    public synchronized Snapshot latest() {
        reader.refresh();
        return snapshotFromState(state().latestId());
    }

    /**
     * What each entry 1..latest says about itself (committer, time, shard count), oldest first. Reads
     * new entries first.
     */
    public synchronized List<CommitInfo> history() {
        reader.refresh();
        return state().commits();
    }

    /** The shards entry {@code snapshotId} added to snapshot {@code snapshotId - 1}; snapshot must exist. */
    public synchronized List<ShardEntry> addedBy(long snapshotId) {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshot ids start at 1, got " + snapshotId);
        }
        reader.requireRead(snapshotId);
        return state().addedBy(snapshotId);
    }

    /** The snapshot with this id; throws {@link IllegalArgumentException} if it does not exist (yet). */
    public synchronized Snapshot snapshot(long snapshotId) {
        if (snapshotId < 0) {
            throw new IllegalArgumentException("snapshot ids are >= 0, got " + snapshotId);
        }
        if (snapshotId > state().latestId()) {
            reader.readUpTo(snapshotId);
        }
        if (snapshotId > state().latestId()) {
            throw new IllegalArgumentException("snapshot " + snapshotId + " of " + dataset + "/" + version
                    + " does not exist; the latest is " + state().latestId());
        }
        if (state().lifecycle().isExpired(snapshotId)) {
            throw new SnapshotExpiredException(dataset, version, snapshotId);
        }
        return snapshotFromState(snapshotId);
    }

    /** The log as it stands after reading new entries: what a lifecycle command plans from. */
    public synchronized LogView view() {
        reader.refresh();
        return viewOfState();
    }

    private LogView viewOfState() {
        LifecycleState lifecycle = state().lifecycle();
        return new LogView(snapshotFromState(state().latestId()), state().commits(), lifecycle.tags(), lifecycle.retention(),
                lifecycle.expired());
    }

    /** Entry {@code snapshotId} as written (its kind, details, added and removed shards). */
    public synchronized CommitEntry entry(long snapshotId) {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshot ids start at 1, got " + snapshotId);
        }
        reader.requireRead(snapshotId);
        return state().entry(snapshotId);
    }

    /**
     * The object keys of the shards of every snapshot in {@code kept}, in one pass over the
     * entries: what garbage collection must not delete.
     */
    public synchronized java.util.Set<String> objectKeysOf(java.util.NavigableSet<Long> kept) {
        reader.refresh();
        return state().objectKeysOf(kept);
    }

    /**
     * Appends the entry {@code planner} asks for, optimistically: the planner sees the log as it is
     * (after reading new entries), and if another committer takes the next id first, it runs again on
     * the log as that left it. It may throw to abort (e.g. the shards it would replace are gone), or
     * return null when there is nothing to do. Returns the new snapshot id, or empty for nothing.
     *
     * @throws CommitContentionException lost the race {@value #MAX_ATTEMPTS} times; nothing written
     */
    public synchronized OptionalLong append(String committer, java.util.function.Function<LogView, EntryChange> planner) {
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            reader.refresh();
            EntryChange change = planner.apply(viewOfState());
            if (change == null) {
                return OptionalLong.empty();
            }
            for (ShardEntry shard : change.added()) {
                if (state().find(shard.shardId()) != null) {
                    throw new IllegalStateException("shard " + shard.shardId() + " is already in the log of " + dataset
                            + "/" + version + "; a rewritten shard needs a new id");
                }
            }
            long next = state().latestId() + 1;
            CommitEntry entry = CommitEntry.of(next, change, committer, Map.of(), clock.instant());
            if (writer.write(entry, state())) {
                log.info("Committed snapshot {} of {}/{}: {} entry, {} shards added, {} removed", next, dataset, version,
                        change.kind().wireName(), change.added().size(), change.removed().size());
                return OptionalLong.of(next);
            }
            log.info("Snapshot {} of {}/{} was taken by another committer (attempt {} of {}); planning again",
                    next, dataset, version, attempt, MAX_ATTEMPTS);
        }
        throw new CommitContentionException(dataset, version, MAX_ATTEMPTS);
    }

    /**
     * The entry of a committed shard as far as this instance has read the log, without reading it
     * again: a cheap check for a replay. A stale answer is safe, since {@link #commit} reads the log
     * before deciding.
     */
    public synchronized Optional<ShardEntry> committedShard(String shardId) {
        if (!readOnce) {
            reader.refresh();
            readOnce = true;
        }
        CommitLogState.Located found = state().find(shardId);
        return found == null ? Optional.empty() : Optional.of(found.entry());
    }

    /**
     * The source offsets recorded by the log, each key's value from the newest entry that has it.
     * A restarted committer compares them with its own position.
     */
    public synchronized Map<String, Long> latestSourceOffsets() {
        reader.refresh();
        return state().latestOffsets();
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
            reader.refresh();
            List<ShardEntry> fresh = new ArrayList<>();
            List<ShardEntry> already = new ArrayList<>();
            long holdingSnapshot = 0;
            for (ShardEntry shard : shards) {
                CommitLogState.Located existing = state().find(shard.shardId());
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
            long next = state().latestId() + 1;
            CommitEntry entry = new CommitEntry(CommitEntry.FORMAT_VERSION, next, fresh, committer, sourceOffsets,
                    clock.instant());
            if (writer.write(entry, state())) {
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

    private CommitLogState state() {
        return reader.state();
    }

    private Snapshot snapshotFromState(long snapshotId) {
        return new Snapshot(dataset, version, snapshotId, state().shardsOf(snapshotId));
    }
}
