package io.shardflow.reader;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What one epoch of a read is: the snapshot each source is pinned to, what each gives, the order,
 * and where the epoch starts. {@link #start} pins the given snapshots (with new-only, just the
 * shards appended since the previous epoch's); {@link #resume} pins exactly what a resume state
 * names, so the rest of that epoch is read from the same order.
 *
 * @param state the epoch as a resume state at its start ({@code consumed} = where it begins)
 */
record EpochPlan(ReadState state, MixedOrder order) {

    /** Rank {@code rank} of {@code worldSize}'s share of the epoch's remainder. */
    RankShare share(int rank, int worldSize) {
        return new RankShare(state.samples(), state.consumed(), rank, worldSize, state.dropLast());
    }

    ReadState stateAt(long consumed) {
        return state.withConsumed(consumed);
    }

    /** Snapshot {@code i} of the plan's sources. */
    long snapshotOf(int source) {
        return state.sources().get(source).snapshotId();
    }

    /**
     * Epoch {@code epoch} from position {@code consumed}, source {@code i} read at snapshot
     * {@code pins[i]}; {@code since} (new-only, or null; an entry null: all of that source) the
     * snapshots the previous epoch read.
     */
    static EpochPlan start(List<CommitLog> logs, Mix mix, List<Long> pins, List<Long> since, ReaderOptions options,
                           long epoch, long consumed, boolean dropLast) {
        List<MixedOrder.MixSource> sources = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; i < logs.size(); i++) {
            Long after = since == null ? null : since.get(i);
            List<ShardEntry> shards = shards(logs.get(i), pins.get(i), after);
            MixedOrder.MixSource source = new MixedOrder.MixSource(shards, options.shuffleShards(), options.shuffleBlock());
            sources.add(source);
            sizes.add(source.size());
        }
        List<Long> counts = mix.countsFor(sizes);
        List<SourcePin> sourcePins = new ArrayList<>();
        for (int i = 0; i < logs.size(); i++) {
            ReadSource s = mix.sources().get(i);
            sourcePins.add(new SourcePin(s.dataset(), s.version(), pins.get(i), since == null ? null : since.get(i),
                    options.shuffleShards(), options.shuffleBlock(), counts.get(i)));
        }
        long size = counts.stream().mapToLong(Long::longValue).sum();
        ReadState state = new ReadState(options.seed(), epoch, dropLast, size, Math.min(size, consumed), sourcePins);
        return new EpochPlan(state, new MixedOrder(sources, counts, options.seed(), epoch));
    }

    /**
     * The rest of the epoch {@code saved} was taken in, on exactly the snapshots it names. A source
     * its caller pinned to another snapshot is refused unless {@code allowSnapshotChange}: then the
     * epoch goes on over the snapshot the reader has now, from the same count (not exact: another
     * order).
     */
    static EpochPlan resume(List<CommitLog> logs, Mix mix, List<Long> pins, ReadState saved, ReaderOptions options,
                            boolean allowSnapshotChange) {
        saved.checkSettings(options.seed(), mix.sources(), options.shuffleShards(), options.shuffleBlock());
        checkPins(mix, pins, saved, allowSnapshotChange);
        List<Long> snapshots = new ArrayList<>();
        List<Long> since = new ArrayList<>();
        for (int i = 0; i < logs.size(); i++) {
            SourcePin pin = saved.sources().get(i);
            snapshots.add(allowSnapshotChange ? pins.get(i) : pin.snapshotId());
            since.add(pin.sinceSnapshot());
        }
        EpochPlan plan = start(logs, mix, snapshots, since, options, saved.epoch(), saved.consumed(), saved.dropLast());
        if (plan.state.samples() != saved.samples() && !allowSnapshotChange) {
            throw new IllegalArgumentException("the resume state's epoch has " + saved.samples() + " samples, its snapshots now"
                    + " give " + plan.state.samples() + ": the state does not belong to this data");
        }
        return plan;
    }

    /**
     * A source its caller pinned ({@link ReadSource#snapshotId()} given) that is now at another
     * snapshot than the state's is refused, unless allowed.
     */
    static void checkPins(Mix mix, List<Long> pins, ReadState saved, boolean allowSnapshotChange) {
        for (int i = 0; i < mix.sources().size(); i++) {
            ReadSource source = mix.sources().get(i);
            long wanted = saved.sources().get(i).snapshotId();
            if (source.snapshotId() != null && pins.get(i) != wanted && !allowSnapshotChange) {
                throw new IllegalArgumentException("the resume state is for " + source.dataset() + "/" + source.version()
                        + " snapshot " + wanted + ", and this reader was opened at snapshot " + pins.get(i)
                        + ": open it without a snapshot (the state pins its own) or allow a snapshot change to go on"
                        + " over another order");
            }
        }
    }

    /**
     * The snapshot's shards in log order; with {@code since}, only those that append entries after
     * {@code since} added (a replace or delete entry's shards hold rows read before, and are left out).
     */
    static List<ShardEntry> shards(CommitLog log, long snapshotId, Long since) {
        Snapshot snapshot = log.snapshot(snapshotId);
        if (since == null) {
            return snapshot.shards();
        }
        Set<String> appended = new HashSet<>();
        for (long id = since + 1; id <= snapshotId; id++) {
            if (log.entry(id).kind() == EntryKind.APPEND) {
                log.addedBy(id).forEach(shard -> appended.add(shard.shardId()));
            }
        }
        return snapshot.shards().stream().filter(shard -> appended.contains(shard.shardId())).toList();
    }
}
