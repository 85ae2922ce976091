package io.shardflow.reader;

import io.shardflow.dataset.retry.Sleeper;
import io.shardflow.dataset.store.ObjectStore;
import java.time.Clock;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * One rank's samples of one epoch, one by one, by reading rules version 2
 * (docs/READING-RULES.md): the Java counterpart of the Python {@code Dataset.samples()}. The epoch
 * is {@link ReaderOptions#epoch()}, or the rest of the one a {@link ReaderOptions#resumeFrom
 * resume state} was saved in; rank {@link ReaderOptions#rank()} of {@link ReaderOptions#worldSize()}
 * gets {@code ceil(R/N)} samples ({@code floor} with drop-last), every sample of the epoch once
 * across ranks apart from declared padding.
 *
 * <p>{@link #state()} between any two samples resumes the whole job (every rank having taken as
 * many) on any number of ranks, in Java or Python. For epoch after epoch, batches, parallel
 * producers and follow mode, use {@link BatchLoader}. Not thread-safe.
 */
public final class DatasetReader implements Iterator<ReadSample>, AutoCloseable {

    /** Samples read together: only how far ahead rows are decoded, never the order. */
    private static final int CHUNK = 64;

    private final EpochReader reader;
    private final OwnedCache cache;
    private final EpochPlan plan;
    private final RankShare share;
    private final OrderedBatches chunks;
    private Iterator<ReadSample> chunk = Collections.emptyIterator();
    private long yielded;

    private DatasetReader(ObjectStore store, ReaderOptions options, OwnedCache cache, Clock clock, Sleeper sleeper,
                          SnapshotAgreement agreement) {
        this.cache = cache;
        this.reader = new EpochReader(store, options, clock, sleeper, agreement);
        this.plan = reader.begin(options.rank(), options.worldSize(), 1);
        this.share = plan.share(options.rank(), options.worldSize());
        this.chunks = new OrderedBatches(plan.order(), share, CHUNK, 0, () -> new RowReader(cache.cache(), store, options.fetch()));
    }

    /** A reader with its own cache (the options' directory, or a temporary one), the system clock and real sleeps. */
    public static DatasetReader open(ObjectStore store, ReaderOptions options) {
        OwnedCache cache = OwnedCache.open(store, options);
        try {
            return new DatasetReader(Objects.requireNonNull(store, "store"), options, cache, Clock.systemUTC(), Sleeper.SYSTEM,
                    SnapshotAgreement.SINGLE_PROCESS);
        } catch (RuntimeException e) {
            cache.close();
            throw e;
        }
    }

    /** A reader on a shared cache with an injected clock and sleeper (new-only polling). */
    public static DatasetReader open(ObjectStore store, ReaderOptions options, ShardCache cache, Clock clock, Sleeper sleeper) {
        return open(store, options, cache, clock, sleeper, SnapshotAgreement.SINGLE_PROCESS);
    }

    /** As {@link #open(ObjectStore, ReaderOptions, ShardCache, Clock, Sleeper)}, ranks agreeing on rank 0's snapshots. */
    public static DatasetReader open(ObjectStore store, ReaderOptions options, ShardCache cache, Clock clock, Sleeper sleeper,
                                     SnapshotAgreement agreement) {
        return new DatasetReader(Objects.requireNonNull(store, "store"), options,
                OwnedCache.borrowed(Objects.requireNonNull(cache, "cache")), Objects.requireNonNull(clock, "clock"),
                Objects.requireNonNull(sleeper, "sleeper"), Objects.requireNonNull(agreement, "agreement"));
    }

    /** The snapshot the (first) source is read at in this epoch. */
    public long snapshotId() {
        return plan.snapshotOf(0);
    }

    /** The snapshot of each source in this epoch. */
    public List<Long> snapshotIds() {
        return plan.state().sources().stream().map(SourcePin::snapshotId).toList();
    }

    /** The epoch being read. */
    public long epoch() {
        return plan.state().epoch();
    }

    /** Samples this rank yields in this epoch (or its resumed rest): the same on every rank. */
    public long samples() {
        return share.length();
    }

    /** How many of {@link #samples()} repeat earlier ones of the epoch (declared padding). */
    public long padding() {
        return share.padding();
    }

    /** Where the job is once every rank has taken as many samples as this one: valid between any two samples. */
    public ReadState state() {
        return reader.state();
    }

    public ShardCache cache() {
        return cache.cache();
    }

    @Override
    public boolean hasNext() {
        while (!chunk.hasNext()) {
            if (!chunks.hasNext()) {
                return false;
            }
            chunk = chunks.next().iterator();
        }
        return true;
    }

    @Override
    public ReadSample next() {
        if (!hasNext()) {
            throw new NoSuchElementException("rank " + share.rank() + " has read its " + share.length() + " samples of epoch "
                    + epoch());
        }
        ReadSample sample = chunk.next();
        reader.delivered(++yielded);
        return sample;
    }

    /** Stops downloads ahead and removes the temporary cache directory, if this reader made one. */
    @Override
    public void close() {
        chunks.close();
        cache.close();
    }
}
