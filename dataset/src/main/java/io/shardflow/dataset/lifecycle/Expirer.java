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
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * {@code dataset expire}: appends an expire entry naming the snapshots that leave the live view,
 * then collects the objects no kept snapshot names ({@link GarbageCollector}). Both halves are
 * idempotent: a run killed after the entry finds nothing more to expire and finishes the
 * collection; a run killed before it starts over.
 *
 * <p>Snapshots that something outside the log needs ({@link SnapshotHolds}: the training
 * checkpoints whose reader position reads them) are kept like tagged ones: the policy passes over
 * them, and {@code through} refuses to drop one, naming who needs it, unless forced.
 */
public final class Expirer {

    private final CommitLog log;
    private final GarbageCollector collector;
    private final Clock clock;
    private final String committer;
    private final SnapshotHolds holds;

    public Expirer(CommitLog log, GarbageCollector collector, Clock clock, String committer) {
        this(log, collector, clock, committer, SnapshotHolds.NONE);
    }

    public Expirer(CommitLog log, GarbageCollector collector, Clock clock, String committer, SnapshotHolds holds) {
        this.log = log;
        this.collector = collector;
        this.clock = clock;
        this.committer = committer;
        this.holds = holds;
    }

    /**
     * What to expire: by a policy (null: the stored one) or through a snapshot id. {@code force}
     * drops snapshots that {@link SnapshotHolds} name too.
     */
    public record Request(RetentionPolicy policy, OptionalLong through, Duration safetyWindow, boolean dryRun,
                          boolean force) {
        public Request(RetentionPolicy policy, OptionalLong through, Duration safetyWindow, boolean dryRun) {
            this(policy, through, safetyWindow, dryRun, false);
        }
    }

    /** @param held snapshots the policy would have expired but kept because something needs them, with who */
    public record Result(NavigableSet<Long> expired, OptionalLong snapshotId, RetentionPolicy policy,
                         GarbageCollector.Result collected, NavigableMap<Long, List<String>> held) {
    }

    public Result expire(String dataset, String version, Request request, Consumer<String> progress) {
        LogView view = log.view();
        RetentionPolicy policy = request.policy() != null ? request.policy() : view.retention();
        NavigableMap<Long, List<String>> held = new TreeMap<>();
        NavigableSet<Long> planned = plan(view, request, policy, dataset, version, held);
        held.forEach((id, who) -> progress.accept("keeping snapshot " + id + ": " + String.join(", ", who)
                + " need" + (who.size() == 1 ? "s" : "") + " it"));
        progress.accept((request.dryRun() ? "would expire " : "expiring ") + planned.size() + " snapshots (" + policy
                + ")");
        OptionalLong snapshot = OptionalLong.empty();
        NavigableSet<Long> expired = planned;
        if (request.dryRun()) {
            NavigableSet<Long> kept = Expiry.kept(view.latestId(), view.expired(), planned, OptionalLong.empty());
            return new Result(planned, snapshot, policy,
                    collector.collect(log, dataset, version, kept, request.safetyWindow(), true, progress), held);
        }
        if (!planned.isEmpty()) {
            AtomicReference<NavigableSet<Long>> chosen = new AtomicReference<>(planned);
            snapshot = log.append(committer, now -> {
                // Re-planned on the log as it is: a tag created meanwhile keeps its snapshot.
                chosen.set(plan(now, request, policy, dataset, version, new TreeMap<>()));
                return chosen.get().isEmpty() ? null : EntryChange.metadata(EntryKind.EXPIRE, Map.of(
                        "expired", SnapshotRanges.format(chosen.get()), "policy", policy.toString()));
            });
            expired = chosen.get();
        }
        LogView after = log.view();
        NavigableSet<Long> kept = Expiry.kept(after.latestId(), after.expired(), new TreeSet<>(), OptionalLong.empty());
        return new Result(expired, snapshot, policy,
                collector.collect(log, dataset, version, kept, request.safetyWindow(), false, progress), held);
    }

    private NavigableSet<Long> plan(LogView view, Request request, RetentionPolicy policy, String dataset,
                                    String version, NavigableMap<Long, List<String>> held) {
        NavigableSet<Long> planned = request.through().isPresent() ? Expiry.through(view, request.through().getAsLong())
                : Expiry.byPolicy(view, policy, clock.instant());
        if (request.force() || planned.isEmpty()) {
            return planned;
        }
        NavigableMap<Long, List<String>> needed = holds.holds(dataset, version);
        for (long id : planned) {
            if (needed.containsKey(id)) {
                held.put(id, needed.get(id));
            }
        }
        if (!held.isEmpty() && request.through().isPresent()) {
            Map.Entry<Long, List<String>> first = held.firstEntry();
            throw new LifecycleException("expiring through snapshot " + request.through().getAsLong()
                    + " would drop snapshot " + first.getKey() + ", which training checkpoints need: "
                    + String.join(", ", first.getValue()) + (held.size() > 1 ? " (and snapshots "
                    + held.navigableKeySet().tailSet(first.getKey(), false) + ")" : "")
                    + "; collect those checkpoints first ('shardflow ckpt gc'), or pass --force (resuming them"
                    + " would then fail)");
        }
        planned.removeAll(held.keySet());
        return planned;
    }

    /** Stores {@code policy} as the version's retention policy (a retention entry). */
    public static long setPolicy(CommitLog log, RetentionPolicy policy, String committer) {
        return log.append(committer, view -> EntryChange.metadata(EntryKind.RETENTION, policy.toDetails())).orElseThrow();
    }
}
