package io.shardflow.console.data;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.shardflow.dataset.log.CommitEntry;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.ShardEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The growth of a dataset version, snapshot by snapshot: for every commit-log entry what it did and the
 * totals (samples, bytes, shards) of the snapshot it made. One pass over the entries, keeping running
 * totals (a replace or delete entry subtracts the shards it removes), remembered per latest snapshot
 * id so the version page does not walk the log again until it grows.
 */
public final class Timeline {

    /** One snapshot: the entry that made it and the snapshot's totals. */
    public record Point(long snapshotId, EntryKind kind, Instant committedAt, String committer, int shardsAdded,
                        int shardsRemoved, long samplesAdded, long samplesRemoved, long samples, long bytes, int shards,
                        Map<String, String> details) {
    }

    private final Cache<String, List<Point>> cache = Caffeine.newBuilder().maximumSize(64).build();

    public List<Point> of(DatasetAccess.VersionKey version, CommitLog log) {
        long latest = log.latest().snapshotId();
        return cache.get(version.dataset() + "/" + version.version() + "@" + latest, k -> walk(log, latest));
    }

    private static List<Point> walk(CommitLog log, long latest) {
        Map<String, ShardEntry> live = new HashMap<>();
        List<Point> points = new ArrayList<>((int) Math.min(latest, 1 << 20));
        long samples = 0;
        long bytes = 0;
        for (long id = 1; id <= latest; id++) {
            CommitEntry entry = log.entry(id);
            long removedSamples = 0;
            for (String removed : entry.removedShards()) {
                ShardEntry gone = live.remove(removed);
                if (gone != null) {
                    removedSamples += gone.sampleCount();
                    bytes -= gone.bytes();
                }
            }
            long addedSamples = 0;
            for (ShardEntry added : entry.addedShards()) {
                live.put(added.shardId(), added);
                addedSamples += added.sampleCount();
                bytes += added.bytes();
            }
            samples += addedSamples - removedSamples;
            points.add(new Point(id, entry.kind(), entry.committedAt(), entry.committer(), entry.addedShards().size(),
                    entry.removedShards().size(), addedSamples, removedSamples, samples, bytes, live.size(), entry.details()));
        }
        return points;
    }
}
