package io.shardflow.cli;

import io.shardflow.dataset.log.CommitInfo;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code shardflow dataset snapshots NAME VERSION}: the history of a dataset version, one snapshot per line. */
@Command(name = "snapshots", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "List a dataset version's snapshots: when, by whom, what each added, running totals.")
final class DatasetSnapshotsCommand extends DatasetVersionSubcommand {

    @Option(names = "--last", paramLabel = "N", description = "only the newest N snapshots")
    Integer last;
    @Option(names = "--json", description = "print {dataset, version, snapshots: [{snapshotId, committedAt, committer, shardsAdded, ...}]}")
    boolean json;

    /** One snapshot as the command shows it. */
    record Row(long snapshotId, Instant committedAt, String committer, int shardsAdded, long samplesAdded, long bytesAdded,
               int totalShards, long totalSamples, String kind, int shardsRemoved, long samplesRemoved) {
    }

    @Override
    public Integer call() {
        requireSpec(name, version);
        List<Row> rows = rows(log(name, version));
        if (last != null && last >= 0 && last < rows.size()) {
            rows = rows.subList(rows.size() - last, rows.size());
        }
        PrintWriter out = out();
        if (json) {
            out.println(JsonOutput.write(Map.of("dataset", name, "version", version, "snapshots", rows)));
            return 0;
        }
        if (rows.isEmpty()) {
            out.printf("%s/%s has no snapshots yet%n", name, version);
            return 0;
        }
        out.printf("%8s  %-24s  %-20s  %6s  %9s  %10s  %8s  %10s%n", "snapshot", "committed at", "committer", "shards",
                "samples", "bytes", "total sh", "total samp");
        for (Row r : rows) {
            out.printf("%8d  %-24s  %-20s  %6s  %9s  %10s  %8d  %10d%n", r.snapshotId(), millis(r.committedAt()), r.committer(),
                    "+" + r.shardsAdded(), "+" + r.samplesAdded(), SnapshotSummary.humanBytes(r.bytesAdded()),
                    r.totalShards(), r.totalSamples());
        }
        return 0;
    }

    /** Commit times to the millisecond, so the column stays 24 characters wide. */
    static Instant millis(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MILLIS);
    }

    static List<Row> rows(CommitLog log) {
        Snapshot latest = log.latest();
        List<CommitInfo> history = log.history();
        List<Row> rows = new ArrayList<>(history.size());
        int totalShards = 0;
        long totalSamples = 0;
        for (CommitInfo commit : history) {
            if (commit.snapshotId() > latest.snapshotId()) {
                break; // committed between the two calls above
            }
            long samples = 0;
            long bytes = 0;
            for (ShardEntry shard : log.addedBy(commit.snapshotId())) {
                samples += shard.sampleCount();
                bytes += shard.bytes();
            }
            long removedSamples = 0;
            if (commit.removedShardCount() > 0) {
                for (String removed : log.entry(commit.snapshotId()).removedShards()) {
                    removedSamples += log.committedShard(removed).map(ShardEntry::sampleCount).orElse(0);
                }
            }
            totalShards += commit.addedShardCount() - commit.removedShardCount();
            totalSamples += samples - removedSamples;
            rows.add(new Row(commit.snapshotId(), commit.committedAt(), commit.committer(), commit.addedShardCount(), samples,
                    bytes, totalShards, totalSamples, commit.kind().wireName(), commit.removedShardCount(), removedSamples));
        }
        return rows;
    }
}
