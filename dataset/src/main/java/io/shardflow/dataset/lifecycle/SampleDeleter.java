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
 * Deletes samples as one delete entry: every live shard holding a matching row is replaced by a
 * rewrite without those rows (or by nothing, when no row is left); other shards are untouched. The
 * entry records the criterion, the reason and how many rows went. The old objects stay for the
 * snapshots before the delete and go at the first expire that drops them all.
 *
 * <p>Same exactly-once argument as {@link Compactor}: rewrites are named by the shard and the
 * criterion, and the append refuses if a rewritten shard has left the live view meanwhile. Shards
 * committed after the scan are not searched: the entry names the snapshot it scanned.
 */
public final class SampleDeleter {

    private final CommitLog log;
    private final ShardRewriter rewriter;
    private final String committer;

    public SampleDeleter(CommitLog log, ShardRewriter rewriter, String committer) {
        this.log = log;
        this.rewriter = rewriter;
        this.committer = committer;
    }

    /** What a delete did. */
    public record Result(long snapshotId, long scannedSnapshot, long deletedSamples, List<ShardEntry> removed,
                         List<ShardEntry> added) {
    }

    /** @throws LifecycleException nothing matched (nothing is written) */
    public Result delete(SampleFilter filter, String reason, Consumer<String> progress) {
        if (reason == null || reason.isBlank()) {
            throw new LifecycleException("--reason is required: the log records why samples were deleted");
        }
        LogView view = log.view();
        List<ShardEntry> removed = new ArrayList<>();
        List<ShardEntry> added = new ArrayList<>();
        long deleted = 0;
        List<ShardEntry> candidates = view.latest().shards().stream().filter(filter::mayMatch).toList();
        int scanned = 0;
        for (ShardEntry shard : candidates) {
            List<SampleRow> rows = rewriter.rows(shard);
            List<SampleRow> kept = rows.stream().filter(row -> !filter.matches(row)).toList();
            if (kept.size() < rows.size()) {
                removed.add(shard);
                deleted += rows.size() - kept.size();
                if (!kept.isEmpty()) {
                    added.add(rewriter.write(rewriter.successorId("delete\n" + filter.describe(),
                            List.of(shard.shardId()), 0), kept));
                }
            }
            if (++scanned % 10 == 0 || scanned == candidates.size()) {
                progress.accept("scanned " + scanned + " of " + candidates.size() + " shards, " + deleted + " rows match");
            }
        }
        if (deleted == 0) {
            throw new LifecycleException("no sample of snapshot " + view.latestId() + " matches " + filter.describe()
                    + ": nothing deleted");
        }
        Set<String> removedIds = removed.stream().map(ShardEntry::shardId).collect(Collectors.toSet());
        long samples = deleted;
        OptionalLong snapshot = log.append(committer, now -> {
            Set<String> live = now.latest().shards().stream().map(ShardEntry::shardId).collect(Collectors.toSet());
            if (!live.containsAll(removedIds)) {
                throw new LifecycleException("shards holding the rows changed while deleting (a compaction or another"
                        + " delete committed first); nothing was committed: run delete again");
            }
            return new EntryChange(EntryKind.DELETE, added, removedIds.stream().sorted().toList(), Map.of(
                    "reason", reason, "criteria", filter.describe(), "deletedSamples", Long.toString(samples),
                    "scannedSnapshot", Long.toString(view.latestId())));
        });
        return new Result(snapshot.orElseThrow(), view.latestId(), deleted, removed, added);
    }
}
