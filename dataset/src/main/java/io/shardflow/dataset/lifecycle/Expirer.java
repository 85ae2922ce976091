package io.shardflow.dataset.lifecycle;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryChange;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.SnapshotRanges;
import java.util.concurrent.atomic.AtomicReference;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * {@code dataset expire}: appends an expire entry naming the snapshots that leave the live view,
 * then collects the objects no kept snapshot names ({@link GarbageCollector}). Both halves are
 * idempotent: a run killed after the entry finds nothing more to expire and finishes the
 * collection; a run killed before it starts over.
 */
public final class Expirer {

    private final CommitLog log;
    private final GarbageCollector collector;
    private final Clock clock;
    private final String committer;

    public Expirer(CommitLog log, GarbageCollector collector, Clock clock, String committer) {
        this.log = log;
        this.collector = collector;
        this.clock = clock;
        this.committer = committer;
    }

    /** What to expire: by a policy (null: the stored one) or through a snapshot id. */
    public record Request(RetentionPolicy policy, OptionalLong through, Duration safetyWindow, boolean dryRun) {
    }

    public record Result(NavigableSet<Long> expired, OptionalLong snapshotId, RetentionPolicy policy,
                         GarbageCollector.Result collected) {
    }

    public Result expire(String dataset, String version, Request request, Consumer<String> progress) {
        LogView view = log.view();
        RetentionPolicy policy = request.policy() != null ? request.policy() : view.retention();
        NavigableSet<Long> planned = plan(view, request, policy);
        progress.accept((request.dryRun() ? "would expire " : "expiring ") + planned.size() + " snapshots (" + policy
                + ")");
        OptionalLong snapshot = OptionalLong.empty();
        NavigableSet<Long> expired = planned;
        if (request.dryRun()) {
            NavigableSet<Long> kept = Expiry.kept(view.latestId(), view.expired(), planned, OptionalLong.empty());
            return new Result(planned, snapshot, policy,
                    collector.collect(log, dataset, version, kept, request.safetyWindow(), true, progress));
        }
        if (!planned.isEmpty()) {
            AtomicReference<NavigableSet<Long>> chosen = new AtomicReference<>(planned);
            snapshot = log.append(committer, now -> {
                // Re-planned on the log as it is: a tag created meanwhile keeps its snapshot.
                chosen.set(plan(now, request, policy));
                return chosen.get().isEmpty() ? null : EntryChange.metadata(EntryKind.EXPIRE, Map.of(
                        "expired", SnapshotRanges.format(chosen.get()), "policy", policy.toString()));
            });
            expired = chosen.get();
        }
        LogView after = log.view();
        NavigableSet<Long> kept = Expiry.kept(after.latestId(), after.expired(), new TreeSet<>(), OptionalLong.empty());
        return new Result(expired, snapshot, policy,
                collector.collect(log, dataset, version, kept, request.safetyWindow(), false, progress));
    }

    private NavigableSet<Long> plan(LogView view, Request request, RetentionPolicy policy) {
        return request.through().isPresent() ? Expiry.through(view, request.through().getAsLong())
                : Expiry.byPolicy(view, policy, clock.instant());
    }

    /** Stores {@code policy} as the version's retention policy (a retention entry). */
    public static long setPolicy(CommitLog log, RetentionPolicy policy, String committer) {
        return log.append(committer, view -> EntryChange.metadata(EntryKind.RETENTION, policy.toDetails())).orElseThrow();
    }
}
