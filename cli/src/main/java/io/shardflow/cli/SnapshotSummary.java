package io.shardflow.cli;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import java.time.Instant;

/** The numbers a person wants about one snapshot, in one line or as JSON. */
record SnapshotSummary(long snapshotId, int shards, long samples, long bytes, Instant firstProducedAt, Instant lastProducedAt) {

    static SnapshotSummary of(Snapshot snapshot) {
        long first = snapshot.shards().stream().mapToLong(ShardEntry::firstProducedAt).min().orElse(0);
        long last = snapshot.shards().stream().mapToLong(ShardEntry::lastProducedAt).max().orElse(0);
        return new SnapshotSummary(snapshot.snapshotId(), snapshot.shards().size(), snapshot.sampleCount(), snapshot.bytes(),
                snapshot.shards().isEmpty() ? null : Instant.ofEpochMilli(first),
                snapshot.shards().isEmpty() ? null : Instant.ofEpochMilli(last));
    }

    String line() {
        return String.format("snapshot %d: %d shards, %d samples, %s", snapshotId, shards, samples, humanBytes(bytes));
    }

    static String humanBytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format("%.1f %s", value, units[unit]);
    }
}
