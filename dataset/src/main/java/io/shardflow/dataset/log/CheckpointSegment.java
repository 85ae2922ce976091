package io.shardflow.dataset.log;

import java.util.List;
import java.util.Objects;

/**
 * An incremental checkpoint (format version 2): log entries {@code base+1 .. snapshotId}, verbatim,
 * in one object. Snapshot {@code snapshotId} is the checkpoint at {@code base} (none when 0) plus
 * these entries, so a chain of a few objects stands for the whole log while each object holds only
 * a stretch of it (dataset/FORMAT.md, "Checkpoints").
 */
public record CheckpointSegment(String dataset, String version, long snapshotId, long base, List<CommitEntry> entries) {

    public static final int FORMAT_VERSION = 2;

    public CheckpointSegment {
        Objects.requireNonNull(dataset, "dataset");
        Objects.requireNonNull(version, "version");
        entries = List.copyOf(entries);
        if (base < 0 || base >= snapshotId) {
            throw new IllegalArgumentException("checkpoint " + snapshotId + " has base " + base + "; 0 <= base < id");
        }
        if (entries.size() != snapshotId - base) {
            throw new IllegalArgumentException("checkpoint " + snapshotId + " over base " + base + " holds "
                    + entries.size() + " entries, not " + (snapshotId - base));
        }
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).snapshotId() != base + 1 + i) {
                throw new IllegalArgumentException("checkpoint " + snapshotId + " holds entry "
                        + entries.get(i).snapshotId() + " where " + (base + 1 + i) + " belongs");
            }
        }
    }
}
