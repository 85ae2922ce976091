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
 * committer also writes {@code checkpoints/…n.json.gz}, holding what entries {@code 1..n} say. Opening
 * a log then costs one LIST (max-keys 1) for the newest checkpoint, one GET for it and one GET per
 * later entry plus one (a 404) to find the end, instead of one GET per entry: a handful of requests
 * for a version of 100,000 shards. An instance that finds itself far behind jumps to a checkpoint too.
 *
 * <p>Thread-safe. Entries read are cached forever (they never change). Snapshots share that cache
 * instead of copying it, so {@link #latest()} costs one GET (a 404) when nothing is new.
 */
public final class CommitLog {

    private static final Logger log = LoggerFactory.getLogger(CommitLog.class);

    static final int MAX_ATTEMPTS = 20;
    /** Default {@code checkpointInterval}; see dataset/FORMAT.md for the measurement behind it. */
    public static final int DEFAULT_CHECKPOINT_INTERVAL = 10;
    /** A read that finds the log this many entries ahead looks for a checkpoint to skip them. */
    static final int CATCH_UP_THRESHOLD = 32;
    private static final int LIST_PAGE = 1000;

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final Clock clock;
    private final int checkpointInterval;
    private final boolean readCheckpoints;
    private final CommitLogCodec codec = new CommitLogCodec();
    private final CheckpointStore checkpoints;
    private CommitLogState state = new CommitLogState();
    private boolean readOnce;
    /** Whether the first read, which starts from a checkpoint, has happened. */
    private boolean opened;

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
        this.readCheckpoints = readCheckpoints;
        this.store = Objects.requireNonNull(store, "store");
        this.dataset = Names.requireDatasetName("dataset name", dataset);
        this.version = Names.requireDatasetName("dataset version", version);
        this.clock = Objects.requireNonNull(clock, "clock");
        if (checkpointInterval < 0) {
            throw new IllegalArgumentException("checkpointInterval must be >= 0 (0 = write none), got " + checkpointInterval);
        }
        this.checkpointInterval = checkpointInterval;
        this.checkpoints = new CheckpointStore(store, this.dataset, this.version);
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
        refresh();
        return snapshotFromState(state.latestId());
    }

    /**
     * What each entry 1..latest says about itself (committer, time, shard count), oldest first. Reads
     * new entries first.
     */
    public synchronized List<CommitInfo> history() {
        refresh();
        return state.commits();
    }

    /** The shards entry {@code snapshotId} added to snapshot {@code snapshotId - 1}; snapshot must exist. */
    public synchronized List<ShardEntry> addedBy(long snapshotId) {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshot ids start at 1, got " + snapshotId);
        }
        requireRead(snapshotId);
        return state.addedBy(snapshotId);
    }

    /** The snapshot with this id; throws {@link IllegalArgumentException} if it does not exist (yet). */
    public synchronized Snapshot snapshot(long snapshotId) {
        if (snapshotId < 0) {
            throw new IllegalArgumentException("snapshot ids are >= 0, got " + snapshotId);
        }
        if (snapshotId > state.latestId()) {
            readUpTo(snapshotId);
        }
        if (snapshotId > state.latestId()) {
            throw new IllegalArgumentException("snapshot " + snapshotId + " of " + dataset + "/" + version
                    + " does not exist; the latest is " + state.latestId());
        }
        if (state.lifecycle().isExpired(snapshotId)) {
            throw new SnapshotExpiredException(dataset, version, snapshotId);
        }
        return snapshotFromState(snapshotId);
    }

    /** Reads up to entry {@code snapshotId}, which must exist (expired or not). */
    private void requireRead(long snapshotId) {
        if (snapshotId > state.latestId()) {
            readUpTo(snapshotId);
        }
        if (snapshotId > state.latestId()) {
            throw new IllegalArgumentException("snapshot " + snapshotId + " of " + dataset + "/" + version
                    + " does not exist; the latest is " + state.latestId());
        }
    }

    /** The log as it stands after reading new entries: what a lifecycle command plans from. */
    public synchronized LogView view() {
        refresh();
        return viewOfState();
    }

    private LogView viewOfState() {
        LifecycleState lifecycle = state.lifecycle();
        return new LogView(snapshotFromState(state.latestId()), state.commits(), lifecycle.tags(), lifecycle.retention(),
                lifecycle.expired());
    }

    /** Entry {@code snapshotId} as written (its kind, details, added and removed shards). */
    public synchronized CommitEntry entry(long snapshotId) {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshot ids start at 1, got " + snapshotId);
        }
        requireRead(snapshotId);
        return state.entry(snapshotId);
    }

    /**
     * The object keys of the shards of every snapshot in {@code kept}, in one pass over the
     * entries: what garbage collection must not delete.
     */
    public synchronized java.util.Set<String> objectKeysOf(java.util.NavigableSet<Long> kept) {
        refresh();
        return state.objectKeysOf(kept);
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
            refresh();
            EntryChange change = planner.apply(viewOfState());
            if (change == null) {
                return OptionalLong.empty();
            }
            for (ShardEntry shard : change.added()) {
                if (state.find(shard.shardId()) != null) {
                    throw new IllegalStateException("shard " + shard.shardId() + " is already in the log of " + dataset
                            + "/" + version + "; a rewritten shard needs a new id");
                }
            }
            long next = state.latestId() + 1;
            CommitEntry entry = CommitEntry.of(next, change, committer, Map.of(), clock.instant());
            String key = DatasetLayout.commitKey(dataset, version, next);
            if (store.putIfAbsent(key, codec.encode(entry)) == PutOutcome.CREATED) {
                state.apply(entry);
                log.info("Committed snapshot {} of {}/{}: {} entry, {} shards added, {} removed", next, dataset, version,
                        change.kind().wireName(), change.added().size(), change.removed().size());
                if (checkpointInterval > 0 && next % checkpointInterval == 0) {
                    checkpoints.write(state, checkpointInterval);
                }
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
                log.info("Committed snapshot {} of {}/{}: {} new shards, {} already committed", next, dataset, version,
                        fresh.size(), already.size());
                if (checkpointInterval > 0 && next % checkpointInterval == 0) {
                    checkpoints.write(state, checkpointInterval);
                }
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

    /** Reads every entry not read yet. */
    private void refresh() {
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
    private void readUpTo(long target) {
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

    private Snapshot snapshotFromState(long snapshotId) {
        return new Snapshot(dataset, version, snapshotId, state.shardsOf(snapshotId));
    }
}
