package io.shardflow.dataset.lifecycle;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryChange;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Merges the small shards of a dataset version into full ones, as one replace entry: snapshots
 * before it keep naming the small shards (their objects stay until an expire drops those snapshots),
 * the new snapshot names the merged ones. Rows keep their snapshot order.
 *
 * <p>Exactly once: the merged shards' ids and bytes follow from the inputs ({@link ShardRewriter}),
 * so a run killed anywhere before the log append leaves only objects that a re-run writes again
 * identically (or that garbage collection removes), and a run killed after it finds nothing small
 * left. The append is optimistic: if another committer takes the next id, the plan is checked
 * again; new shards from the sink are kept as they are, but if any input has left the live view
 * (another compaction or a delete), the run stops with nothing committed.
 */
public final class Compactor {

    private final CommitLog log;
    private final ShardRewriter rewriter;
    private final String committer;

    public Compactor(CommitLog log, ShardRewriter rewriter, String committer) {
        this.log = log;
        this.rewriter = rewriter;
        this.committer = committer;
    }

    /** What a compaction did: the groups it merged (input ids per output) and the snapshot it made. */
    public record Result(OptionalLong snapshotId, List<ShardEntry> removed, List<ShardEntry> added, long samples) {
    }

    /** The groups of small shards to merge: consecutive small shards until a group reaches {@code targetSamples}. */
    public static List<List<ShardEntry>> plan(List<ShardEntry> live, String fingerprint, int targetSamples) {
        if (targetSamples < 2) {
            throw new IllegalArgumentException("target samples must be >= 2, got " + targetSamples);
        }
        List<List<ShardEntry>> groups = new ArrayList<>();
        List<ShardEntry> group = new ArrayList<>();
        long samples = 0;
        for (ShardEntry shard : live) {
            if (shard.sampleCount() >= targetSamples || !shard.specFingerprint().equals(fingerprint)) {
                continue;
            }
            group.add(shard);
            samples += shard.sampleCount();
            if (samples >= targetSamples) {
                groups.add(group);
                group = new ArrayList<>();
                samples = 0;
            }
        }
        if (group.size() > 1) {
            groups.add(group);
        }
        return groups;
    }

    public Result compact(String fingerprint, int targetSamples, Consumer<String> progress) {
        LogView view = log.view();
        List<List<ShardEntry>> groups = plan(view.latest().shards(), fingerprint, targetSamples);
        if (groups.isEmpty()) {
            progress.accept("nothing to compact: no two live shards under " + targetSamples + " samples");
            return new Result(OptionalLong.empty(), List.of(), List.of(), 0);
        }
        List<ShardEntry> removed = new ArrayList<>();
        List<ShardEntry> added = new ArrayList<>();
        long samples = 0;
        for (int g = 0; g < groups.size(); g++) {
            List<ShardEntry> group = groups.get(g);
            List<SampleRow> rows = new ArrayList<>();
            for (ShardEntry shard : group) {
                rows.addAll(rewriter.rows(shard));
            }
            List<String> ids = group.stream().map(ShardEntry::shardId).toList();
            added.add(rewriter.write(rewriter.successorId("compact", ids, 0), rows));
            removed.addAll(group);
            samples += rows.size();
            progress.accept("merged group " + (g + 1) + " of " + groups.size() + ": " + group.size() + " shards, "
                    + rows.size() + " samples");
        }
        Set<String> removedIds = removed.stream().map(ShardEntry::shardId).collect(Collectors.toSet());
        OptionalLong snapshot = log.append(committer, now -> {
            Set<String> live = now.latest().shards().stream().map(ShardEntry::shardId).collect(Collectors.toSet());
            if (!live.containsAll(removedIds)) {
                throw new LifecycleException("the shards to compact changed while compacting (another compaction or"
                        + " a delete committed first); nothing was committed: run compact again");
            }
            return new EntryChange(EntryKind.REPLACE, added, List.copyOf(removedIds.stream().sorted().toList()),
                    Map.of("targetSamples", Integer.toString(targetSamples)));
        });
        return new Result(snapshot, removed, added, samples);
    }
}
