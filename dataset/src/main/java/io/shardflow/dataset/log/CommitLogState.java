package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link CommitLog} has read so far: entries 1..latestId applied in order, either one by one
 * or from checkpoints. Entries are immutable once written, so this cache never needs invalidating,
 * only extending. Not thread-safe: the owning CommitLog serialises access.
 *
 * <p>Snapshot {@code k} is the shards entries {@code 1..k} added, in entry order, minus those a
 * replace or delete entry among them removed. While no entry has removed anything (every log
 * shard-sink alone writes) that is a prefix of one append-only array, handed out as a view.
 */
final class CommitLogState {

    /** A shard the log has added (it may have been removed since) and the snapshot that added it. */
    record Located(ShardEntry entry, long snapshotId) {
    }

    private final AppendOnlyList<ShardEntry> shardsInOrder = new AppendOnlyList<>();
    private final AppendOnlyList<CommitEntry> entries = new AppendOnlyList<>();
    private final AppendOnlyList<CommitInfo> commits = new AppendOnlyList<>();
    /** shardEnds.get(k) = shards added by entries 1..k; index 0 is the empty snapshot. */
    private final AppendOnlyList<Integer> shardEnds = new AppendOnlyList<>();
    private final Map<String, Located> byShardId = new HashMap<>();
    private final Map<String, Long> latestOffsets = new TreeMap<>();
    private final LifecycleState lifecycle = new LifecycleState();
    /** The live shards of the latest snapshot, once an entry has removed any. */
    private final LinkedHashMap<String, ShardEntry> live = new LinkedHashMap<>();
    private long firstRemoval = Long.MAX_VALUE;
    private List<ShardEntry> latestLiveView;
    /**
     * Entries up to this id came from a version-1 checkpoint, which keeps their shards but not each
     * entry's own source offsets: they can be replayed but not re-encoded as log entries.
     */
    private long summarisedUpTo;

    CommitLogState() {
        shardEnds.add(0);
    }

    /** The state a version-1 checkpoint describes; throws {@link IllegalArgumentException} if it is inconsistent. */
    static CommitLogState of(Checkpoint checkpoint) {
        CommitLogState state = new CommitLogState();
        int next = 0;
        List<ShardEntry> shards = checkpoint.shards();
        for (CommitInfo commit : checkpoint.commits()) {
            if (commit.snapshotId() != state.latestId() + 1) {
                throw new IllegalArgumentException("checkpoint " + checkpoint.snapshotId() + " lists commit "
                        + commit.snapshotId() + " after " + state.latestId());
            }
            int end = next + commit.addedShardCount();
            if (end > shards.size()) {
                throw new IllegalArgumentException("checkpoint " + checkpoint.snapshotId() + " lists more added shards ("
                        + end + " by snapshot " + commit.snapshotId() + ") than it holds (" + shards.size() + ")");
            }
            state.apply(new CommitEntry(CommitEntry.FORMAT_VERSION, commit.snapshotId(), shards.subList(next, end),
                    commit.committer(), Map.of(), commit.committedAt()));
            next = end;
        }
        if (state.latestId() != checkpoint.snapshotId() || next != shards.size()) {
            throw new IllegalArgumentException("checkpoint " + checkpoint.snapshotId() + " covers snapshots 1.."
                    + state.latestId() + " and " + next + " of its " + shards.size() + " shards");
        }
        state.latestOffsets.putAll(checkpoint.sourceOffsets());
        state.summarisedUpTo = state.latestId();
        return state;
    }

    long latestId() {
        return shardEnds.size() - 1L;
    }

    long summarisedUpTo() {
        return summarisedUpTo;
    }

    /** Appends the next entry; the caller has checked it is {@code latestId() + 1}. */
    void apply(CommitEntry entry) {
        if (entry.snapshotId() != latestId() + 1) {
            throw new IllegalStateException("commit " + entry.snapshotId() + " applied after " + latestId());
        }
        if (!entry.removedShards().isEmpty() && firstRemoval == Long.MAX_VALUE) {
            firstRemoval = entry.snapshotId();
            for (ShardEntry shard : shardsOf(latestId())) {
                live.put(shard.shardId(), shard);
            }
        }
        for (String removed : entry.removedShards()) {
            if (live.remove(removed) == null) {
                throw new IllegalStateException("commit log is corrupt: entry " + entry.snapshotId() + " removes shard "
                        + removed + ", which is not in snapshot " + latestId());
            }
        }
        for (ShardEntry shard : entry.addedShards()) {
            add(shard, entry.snapshotId());
            if (firstRemoval != Long.MAX_VALUE) {
                live.put(shard.shardId(), shard);
            }
        }
        lifecycle.apply(entry);
        entries.add(entry);
        commits.add(CommitInfo.of(entry));
        shardEnds.add(shardsInOrder.size());
        latestOffsets.putAll(entry.sourceOffsets());
        latestLiveView = null;
    }

    private void add(ShardEntry shard, long snapshotId) {
        Located previous = byShardId.putIfAbsent(shard.shardId(), new Located(shard, snapshotId));
        if (previous != null) {
            // Only a buggy or foreign writer can produce this: CommitLog never re-adds a shard.
            throw new IllegalStateException("commit log is corrupt: shard " + shard.shardId() + " is added by snapshot "
                    + previous.snapshotId() + " and again by snapshot " + snapshotId);
        }
        shardsInOrder.add(shard);
    }

    /** A shard the log ever added, live or removed since; null if none. */
    Located find(String shardId) {
        return byShardId.get(shardId);
    }

    /** Shards of snapshot {@code snapshotId}, immutable. */
    List<ShardEntry> shardsOf(long snapshotId) {
        if (snapshotId < firstRemoval) {
            return shardsInOrder.prefix(shardEnds.get(Math.toIntExact(snapshotId)));
        }
        if (snapshotId == latestId()) {
            if (latestLiveView == null) {
                latestLiveView = List.copyOf(live.values());
            }
            return latestLiveView;
        }
        return replay(snapshotId);
    }

    /** Recomputes an older snapshot from the entries: rare (pinned readers of old snapshots, verify). */
    private List<ShardEntry> replay(long snapshotId) {
        LinkedHashMap<String, ShardEntry> shards = new LinkedHashMap<>();
        for (int i = 0; i < snapshotId; i++) {
            CommitEntry entry = entries.get(i);
            entry.removedShards().forEach(shards::remove);
            entry.addedShards().forEach(shard -> shards.put(shard.shardId(), shard));
        }
        return List.copyOf(shards.values());
    }

    /** Shards added by entry {@code snapshotId} (>= 1). */
    List<ShardEntry> addedBy(long snapshotId) {
        int id = Math.toIntExact(snapshotId);
        return shardsInOrder.range(shardEnds.get(id - 1), shardEnds.get(id));
    }

    /** Entry {@code snapshotId} (>= 1). */
    CommitEntry entry(long snapshotId) {
        return entries.get(Math.toIntExact(snapshotId) - 1);
    }

    /** Entries {@code from+1 .. to}. */
    List<CommitEntry> entries(long from, long to) {
        return entries.range(Math.toIntExact(from), Math.toIntExact(to));
    }

    /** Commits 1..latestId. */
    List<CommitInfo> commits() {
        return commits.prefix(commits.size());
    }

    LifecycleState lifecycle() {
        return lifecycle;
    }

    Map<String, Long> latestOffsets() {
        return Collections.unmodifiableMap(new TreeMap<>(latestOffsets));
    }

    /** Every shard ever added, in entry order (live or removed). */
    List<ShardEntry> everyShard() {
        return new ArrayList<>(shardsInOrder.prefix(shardsInOrder.size()));
    }

    /**
     * Object keys of the shards of every snapshot in {@code kept}, and of the page indexes their
     * entries name (an index lives and goes with its shard): a shard added by entry {@code a}
     * and removed by entry {@code r} (or never) is in snapshots {@code a..r-1}, so one pass over the
     * entries finds them however many snapshots are kept.
     */
    java.util.Set<String> objectKeysOf(java.util.NavigableSet<Long> kept) {
        Map<String, Long> removedAt = new HashMap<>();
        for (long id = 1; id <= latestId(); id++) {
            for (String removed : entry(id).removedShards()) {
                removedAt.put(removed, id);
            }
        }
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (long id = 1; id <= latestId(); id++) {
            for (ShardEntry shard : entry(id).addedShards()) {
                Long firstKept = kept.ceiling(id);
                if (firstKept != null && firstKept < removedAt.getOrDefault(shard.shardId(), Long.MAX_VALUE)) {
                    keys.add(shard.objectKey());
                    if (shard.hasPageIndex()) {
                        keys.add(DatasetLayout.pageIndexKey(shard.objectKey()));
                    }
                }
            }
        }
        return keys;
    }
}
