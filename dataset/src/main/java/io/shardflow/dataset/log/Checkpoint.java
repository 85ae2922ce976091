package io.shardflow.dataset.log;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything log entries {@code 1..snapshotId} say, in one object
 * ({@code checkpoints/<descending id>-<id>.json.gz}), so opening a long log takes one GET instead
 * of one per entry. Its content is a pure function of those entries: whoever writes it writes the
 * same checkpoint, so a create-only write that finds it already there has nothing to do.
 *
 * @param sourceOffsets each source's newest offset over entries 1..snapshotId
 * @param commits       one per entry, in id order
 * @param shards        every shard of the snapshot, in entry order; entry {@code k}'s shards follow
 *                      entry {@code k-1}'s, {@code commits[k-1].addedShardCount} of them
 */
public record Checkpoint(
        int formatVersion,
        String dataset,
        String version,
        long snapshotId,
        Map<String, Long> sourceOffsets,
        List<CommitInfo> commits,
        List<ShardEntry> shards) {

    public static final int FORMAT_VERSION = 1;

    public Checkpoint {
        Objects.requireNonNull(dataset, "dataset");
        Objects.requireNonNull(version, "version");
        if (snapshotId < 1) {
            throw new IllegalArgumentException("checkpoint snapshotId must be >= 1, got " + snapshotId);
        }
        sourceOffsets = Collections.unmodifiableMap(new TreeMap<>(sourceOffsets));
        commits = commits instanceof AppendOnlyList.View<CommitInfo> ? commits : List.copyOf(commits);
        shards = shards instanceof AppendOnlyList.View<ShardEntry> ? shards : List.copyOf(shards);
    }
}
