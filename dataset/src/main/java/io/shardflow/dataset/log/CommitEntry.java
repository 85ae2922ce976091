package io.shardflow.dataset.log;

import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * One entry of a dataset version's commit log: how snapshot {@code snapshotId} differs from
 * snapshot {@code snapshotId - 1}. An {@link EntryKind#APPEND} adds shards; a replace or delete
 * removes shards (by id) and adds their rewritten successors; a tag, retention or expire entry
 * changes no shard and records only its {@code details}.
 *
 * @param sourceOffsets the committer's source positions after this commit (e.g. Kafka
 *                      {@code topic-partition} to next offset), so a restarted committer can tell
 *                      what is already in the dataset
 * @param removedShards ids of live shards this entry takes out of the snapshot
 * @param details       what the entry records besides shards (tag name, retention, reason of a
 *                      deletion...), string to string; the keys per kind are in dataset/FORMAT.md
 */
public record CommitEntry(
        int formatVersion,
        long snapshotId,
        EntryKind kind,
        List<ShardEntry> addedShards,
        List<String> removedShards,
        Map<String, String> details,
        String committer,
        Map<String, Long> sourceOffsets,
        Instant committedAt) {

    /** The format of append entries, which every reader understands. */
    public static final int FORMAT_VERSION = 1;
    /** The format of entries of the other kinds. */
    public static final int LIFECYCLE_FORMAT_VERSION = 2;

    public CommitEntry {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshotId must be >= 1, got " + snapshotId);
        }
        Objects.requireNonNull(kind, "kind");
        addedShards = List.copyOf(Objects.requireNonNull(addedShards, "addedShards"));
        removedShards = List.copyOf(Objects.requireNonNull(removedShards, "removedShards"));
        details = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(details, "details")));
        int expectedFormat = kind == EntryKind.APPEND ? FORMAT_VERSION : LIFECYCLE_FORMAT_VERSION;
        if (formatVersion != expectedFormat) {
            throw new IllegalArgumentException("commit " + snapshotId + " of kind " + kind.wireName()
                    + " must have formatVersion " + expectedFormat + ", has " + formatVersion);
        }
        if (kind == EntryKind.APPEND && addedShards.isEmpty()) {
            throw new IllegalArgumentException("commit " + snapshotId + " adds no shards");
        }
        if (kind.removesShards() && removedShards.isEmpty()) {
            throw new IllegalArgumentException("commit " + snapshotId + " (" + kind.wireName() + ") removes no shards");
        }
        if (!kind.removesShards() && !removedShards.isEmpty()) {
            throw new IllegalArgumentException("commit " + snapshotId + " (" + kind.wireName() + ") cannot remove shards");
        }
        if (kind.metadataOnly() && !addedShards.isEmpty()) {
            throw new IllegalArgumentException("commit " + snapshotId + " (" + kind.wireName() + ") cannot add shards");
        }
        Set<String> ids = new HashSet<>();
        for (ShardEntry shard : addedShards) {
            if (!ids.add(shard.shardId())) {
                throw new IllegalArgumentException("commit " + snapshotId + " adds shard " + shard.shardId() + " twice");
            }
        }
        if (new HashSet<>(removedShards).size() != removedShards.size()) {
            throw new IllegalArgumentException("commit " + snapshotId + " removes a shard twice");
        }
        if (committer == null || committer.isBlank()) {
            throw new IllegalArgumentException("commit " + snapshotId + " has no committer");
        }
        // Sorted, so the encoded entry lists offsets in a stable order.
        sourceOffsets = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(sourceOffsets, "sourceOffsets")));
        Objects.requireNonNull(committedAt, "committedAt");
    }

    /** An append entry (format version 1), the only kind shard-sink writes. */
    public CommitEntry(int formatVersion, long snapshotId, List<ShardEntry> addedShards, String committer,
                       Map<String, Long> sourceOffsets, Instant committedAt) {
        this(formatVersion, snapshotId, EntryKind.APPEND, addedShards, List.of(), Map.of(), committer, sourceOffsets,
                committedAt);
    }

    /** An entry of any kind, at the format version its kind needs. */
    public static CommitEntry of(long snapshotId, EntryChange change, String committer, Map<String, Long> sourceOffsets,
                                 Instant committedAt) {
        int format = change.kind() == EntryKind.APPEND ? FORMAT_VERSION : LIFECYCLE_FORMAT_VERSION;
        return new CommitEntry(format, snapshotId, change.kind(), change.added(), change.removed(), change.details(),
                committer, sourceOffsets, committedAt);
    }
}
