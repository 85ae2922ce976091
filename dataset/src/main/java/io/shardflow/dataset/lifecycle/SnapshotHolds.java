package io.shardflow.dataset.lifecycle;

import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Snapshots that something outside the commit log still needs, each with who needs it (for
 * example the training checkpoints whose reader position reads it, "run r7 step 4000"). Expiry
 * keeps them (docs/ARCHITECTURE.md § 10).
 */
@FunctionalInterface
public interface SnapshotHolds {

    SnapshotHolds NONE = (dataset, version) -> new TreeMap<>();

    /** Snapshot id to the holders that need it, for one dataset version. */
    NavigableMap<Long, List<String>> holds(String dataset, String version);
}
