package io.shardflow.dataset.log;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.Collections;

/**
 * One entry of a dataset version's commit log: the shards that snapshot {@code snapshotId} adds to
 * snapshot {@code snapshotId - 1}.
 *
 * @param sourceOffsets the committer's source positions after this commit (e.g. Kafka
 *                      {@code topic-partition} to next offset), so a restarted committer can tell
 *                      what is already in the dataset
 */
public record CommitEntry(
        int formatVersion,
        long snapshotId,
        List<ShardEntry> addedShards,
        String committer,
        Map<String, Long> sourceOffsets,
        Instant committedAt) {

    public static final int FORMAT_VERSION = 1;

    public CommitEntry {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshotId must be >= 1, got " + snapshotId);
        }
        addedShards = List.copyOf(Objects.requireNonNull(addedShards, "addedShards"));
        if (addedShards.isEmpty()) {
            throw new IllegalArgumentException("commit " + snapshotId + " adds no shards");
        }
        Set<String> ids = new HashSet<>();
        for (ShardEntry shard : addedShards) {
            if (!ids.add(shard.shardId())) {
                throw new IllegalArgumentException("commit " + snapshotId + " adds shard " + shard.shardId() + " twice");
            }
        }
        if (committer == null || committer.isBlank()) {
            throw new IllegalArgumentException("commit " + snapshotId + " has no committer");
        }
        // Sorted, so the encoded entry lists offsets in a stable order.
        sourceOffsets = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(sourceOffsets, "sourceOffsets")));
        Objects.requireNonNull(committedAt, "committedAt");
    }
}
