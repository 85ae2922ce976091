package io.shardflow.cli;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shardflow dataset diff NAME VERSION A B}: what snapshot B has that A has not. */
@Command(name = "diff", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "Shards and samples added between snapshot A and a later snapshot B.")
final class DatasetDiffCommand extends DatasetVersionSubcommand {

    @Parameters(index = "2", paramLabel = "A", description = "the earlier snapshot id")
    long from;
    @Parameters(index = "3", paramLabel = "B", description = "the later snapshot id")
    long to;
    @Option(names = "--shards", description = "list every added shard")
    boolean listShards;
    @Option(names = "--json", description = "print {dataset, version, from, to, shardsAdded, samplesAdded, bytesAdded, commits, shards}")
    boolean json;

    @Override
    public Integer call() {
        requireSpec(name, version);
        if (from > to) {
            throw new IllegalArgumentException("A (" + from + ") must not be after B (" + to + "): diff compares an older snapshot with a newer one");
        }
        CommitLog log = log(name, version);
        Snapshot b = log.snapshot(to);
        Snapshot a = log.snapshot(from);
        java.util.Set<String> inA = a.shards().stream().map(ShardEntry::shardId).collect(java.util.stream.Collectors.toSet());
        java.util.Set<String> inB = b.shards().stream().map(ShardEntry::shardId).collect(java.util.stream.Collectors.toSet());
        List<ShardEntry> added = b.shards().stream().filter(s -> !inA.contains(s.shardId())).toList();
        List<ShardEntry> removed = a.shards().stream().filter(s -> !inB.contains(s.shardId())).toList();
        List<DatasetSnapshotsCommand.Row> commits = DatasetSnapshotsCommand.rows(log).stream()
                .filter(r -> r.snapshotId() > from && r.snapshotId() <= to).toList();
        long samples = added.stream().mapToLong(ShardEntry::sampleCount).sum();
        long bytes = added.stream().mapToLong(ShardEntry::bytes).sum();
        PrintWriter out = out();
        if (json) {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("dataset", name);
            view.put("version", version);
            view.put("from", from);
            view.put("to", to);
            view.put("shardsAdded", added.size());
            view.put("samplesAdded", samples);
            view.put("bytesAdded", bytes);
            view.put("shardsRemoved", removed.size());
            view.put("samplesRemoved", removed.stream().mapToLong(ShardEntry::sampleCount).sum());
            view.put("commits", commits);
            view.put("shards", added);
            out.println(JsonOutput.write(view));
            return 0;
        }
        out.printf("%s/%s snapshot %d -> %d: +%d shards, +%d samples, +%s in %d commits%n", name, version, from, to,
                added.size(), samples, SnapshotSummary.humanBytes(bytes), commits.size());
        for (DatasetSnapshotsCommand.Row r : commits) {
            out.printf("  snapshot %d  %s  by %s: +%d shards, +%d samples%n", r.snapshotId(),
                    DatasetSnapshotsCommand.millis(r.committedAt()), r.committer(),
                    r.shardsAdded(), r.samplesAdded());
        }
        if (listShards) {
            added.forEach(s -> out.printf("    %s  %d samples  sha256 %s%n", s.shardId(), s.sampleCount(),
                    s.sha256().substring(0, 16)));
        }
        return 0;
    }
}
