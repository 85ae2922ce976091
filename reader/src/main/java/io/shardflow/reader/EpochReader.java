package io.shardflow.reader;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.retry.Sleeper;
import io.shardflow.dataset.store.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Epoch after epoch of one read: which snapshots each epoch pins, where a resumed epoch starts,
 * and the resume state as batches are delivered (docs/READING-RULES.md, sections 3 and 5). The
 * loaders wrap it; the rank's thread that hands batches to the trainer drives it.
 *
 * <p>An epoch reads the snapshots pinned when it {@link #begin begins} and never changes within
 * it. In follow mode each beginning re-pins every source to its newest snapshot; with new-only it
 * reads only what the previous epoch had not, waiting (polling) up to the follow timeout for it.
 * Not thread-safe.
 */
final class EpochReader {

    private static final Logger log = LoggerFactory.getLogger(EpochReader.class);

    private final ReaderOptions options;
    private final Mix mix;
    private final List<CommitLog> logs = new ArrayList<>();
    private final Clock clock;
    private final Sleeper sleeper;
    private final SnapshotAgreement agreement;
    private List<Long> pins = new ArrayList<>();
    private long epoch;
    private EpochPlan plan;
    private ReadState loaded;
    private boolean allowSnapshotChange;
    /** The snapshots the last epoch read (new-only reads what is new against them). */
    private List<Long> previous;
    private int rank;
    private int worldSize = 1;
    private int unit = 1;
    private long delivered;

    EpochReader(ObjectStore store, ReaderOptions options, Clock clock, Sleeper sleeper, SnapshotAgreement agreement) {
        this.options = options;
        this.mix = options.read();
        this.clock = clock;
        this.sleeper = sleeper;
        this.agreement = agreement;
        Map<String, CommitLog> byName = new HashMap<>();
        for (ReadSource source : mix.sources()) {
            CommitLog commitLog = byName.computeIfAbsent(source.dataset() + "/" + source.version(),
                    name -> new CommitLog(store, source.dataset(), source.version(), clock, 0));
            logs.add(commitLog);
            pins.add(source.snapshotId() != null ? commitLog.snapshot(source.snapshotId()).snapshotId()
                    : commitLog.latest().snapshotId());
        }
        this.epoch = options.epoch();
        if (options.resume() != null) {
            load(options.resume(), options.allowSnapshotChange());
        }
    }

    /** The epoch the next {@link #begin} reads. */
    long epoch() {
        return epoch;
    }

    /** The epoch being read, or null before the first {@link #begin}. */
    EpochPlan plan() {
        return plan;
    }

    /** The epoch of the next {@link #begin}. Another epoch forgets a loaded state; the same keeps it. */
    void setEpoch(long next) {
        if (next < 0) {
            throw new IllegalArgumentException("epochs are in 0..2^63-1, got " + next);
        }
        if (next != epoch) {
            if (plan != null) {
                previous = snapshotsOf(plan);
            }
            epoch = next;
            loaded = null;
            plan = null;
        }
    }

    /**
     * Pins the epoch about to be read (a loaded state's, else a fresh one) and starts counting what
     * this rank delivers, in units of {@code unitSamples} (the batch size; 1 for single samples).
     */
    EpochPlan begin(int rankOf, int worldSizeOf, int unitSamples) {
        if (loaded != null) {
            plan = EpochPlan.resume(logs, mix, pins, loaded, options, allowSnapshotChange);
            loaded = null;
        } else {
            if (options.follow()) {
                pinNewest();
            } else { // ranks that opened their datasets at different times must still read one snapshot
                pins = List.copyOf(agreement.agree(List.copyOf(pins)));
            }
            plan = fresh();
        }
        rank = rankOf;
        worldSize = worldSizeOf;
        unit = unitSamples;
        delivered = 0;
        log.info("Epoch {} of {}: {} samples from {}, {} consumed; rank {} of {}", plan.state().epoch(), mix.sources(),
                plan.state().samples(), snapshotsOf(plan), plan.state().consumed(), rank, worldSize);
        return plan;
    }

    /** Records how many units (batches, or samples) of the epoch this rank has delivered so far. */
    void delivered(long units) {
        delivered = Math.max(delivered, units);
    }

    /** Where the job is: the same on every rank in lockstep. */
    ReadState state() {
        if (loaded != null) { // loaded, not yet begun: hand back what was loaded
            return loaded;
        }
        if (plan == null) { // nothing read yet in this epoch: it starts from 0 on what is pinned now
            return fresh().state();
        }
        return plan.stateAt(plan.share(rank, worldSize).consumedAfter(delivered, unit));
    }

    /** The resume point for the next {@link #begin}: its epoch and snapshots, and the consumed count. */
    void load(ReadState state, boolean allowChange) {
        if (state.sources().size() != mix.sources().size()) {
            throw new IllegalArgumentException("the resume state names " + state.sources().size() + " sources, this read "
                    + mix.sources().size());
        }
        state.checkSettings(options.seed(), mix.sources(), options.shuffleShards(), options.shuffleBlock());
        EpochPlan.checkPins(mix, pins, state, allowChange);
        epoch = state.epoch();
        previous = state.sources().stream().map(SourcePin::snapshotId).toList();
        loaded = state;
        allowSnapshotChange = allowChange;
        plan = null;
    }

    private EpochPlan fresh() {
        return EpochPlan.start(logs, mix, pins, options.newOnly() ? previous : null, options, epoch, 0, options.dropLast());
    }

    /**
     * Follow mode: every source re-pinned to its newest snapshot (rank 0's choice); with new-only,
     * waits until one has something the previous epoch did not read, or the timeout passes.
     */
    private void pinNewest() {
        Instant started = clock.instant();
        List<Long> ids;
        while (true) {
            List<Long> latest = new ArrayList<>();
            for (CommitLog commitLog : logs) {
                latest.add(commitLog.latest().snapshotId());
            }
            ids = List.copyOf(agreement.agree(latest));
            if (!options.newOnly() || previous == null || !ids.equals(previous)) {
                break;
            }
            Duration waited = Duration.between(started, clock.instant());
            Duration timeout = options.followTimeout();
            if (timeout != null && waited.compareTo(timeout) >= 0) {
                log.info("Nothing new in {} after {} for {}: epoch {} reads nothing", mix.sources(), previous, timeout, epoch);
                break;
            }
            Duration wait = timeout == null ? options.pollInterval() : min(options.pollInterval(), timeout.minus(waited));
            try {
                sleeper.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for new snapshots", e);
            }
        }
        pins = ids;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static List<Long> snapshotsOf(EpochPlan plan) {
        return plan.state().sources().stream().map(SourcePin::snapshotId).toList();
    }
}
