package io.shardflow.reader;

import io.shardflow.dataset.spec.Names;

/**
 * One dataset version a read takes samples from.
 *
 * @param snapshotId the snapshot to pin, or null for the latest when the reader opens. Readers of
 *                   one job (all ranks) should pin the same one: pass it, or let rank 0's choice
 *                   reach the others ({@link SnapshotAgreement}). A resume state pins its own; one
 *                   given here that differs is refused unless the reader allows a snapshot change.
 */
public record ReadSource(String dataset, String version, Long snapshotId) {

    public ReadSource {
        Names.requireDatasetName("dataset name", dataset);
        Names.requireDatasetName("dataset version", version);
        if (snapshotId != null && snapshotId < 0) {
            throw new IllegalArgumentException("snapshot ids are >= 0, got " + snapshotId);
        }
    }

    /** The latest snapshot when the reader opens. */
    public static ReadSource latest(String dataset, String version) {
        return new ReadSource(dataset, version, null);
    }

    public static ReadSource at(String dataset, String version, long snapshotId) {
        return new ReadSource(dataset, version, snapshotId);
    }

    @Override
    public String toString() {
        return dataset + "/" + version + (snapshotId == null ? "" : "@" + snapshotId);
    }
}
