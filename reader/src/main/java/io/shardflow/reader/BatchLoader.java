package io.shardflow.reader;

import io.shardflow.dataset.retry.Sleeper;
import io.shardflow.dataset.store.ObjectStore;
import java.time.Clock;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * A trainer's batches, epoch after epoch, by reading rules version 2 (docs/READING-RULES.md): the
 * Java counterpart of the Python {@code ShardflowDataLoader}, with the same order, split and resume
 * state bit for bit.
 *
 * <pre>{@code
 * ReaderOptions options = ReaderOptions.of("cams", "v1").withSnapshot(12).withSeed(7)
 *         .withRanks(rank, worldSize).withBatches(32, 4);  // batches of 32 from 4 producer threads
 * try (BatchLoader loader = BatchLoader.open(store, options)) {
 *     if (saved != null) loader.loadState(ReadState.fromJson(saved));  // from any world size, Java or Python
 *     for (long epoch = loader.epoch(); epoch < 10; epoch++) {
 *         loader.setEpoch(epoch);
 *         for (List<ReadSample> batch : loader) {
 *             train(batch);
 *             saved = loader.state().toJson();  // the same on every rank in step
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Every rank gets the same number of batches whatever the sample count: {@code ceil(R/N)}
 * samples each (at most one declared repeat per rank) or {@code floor(R/N)} with drop-last, every
 * sample of the epoch once across ranks apart from that padding. Worker thread {@code w} of
 * {@code W} makes the batches {@code j mod W = w}; they are handed out as {@code 0, 1, 2, ...}.
 * {@link #state()} after {@code k} batches names the prefix of the epoch the whole job has
 * consumed; a job resumed from it with any number of ranks, workers and batch size reads exactly
 * the rest. Follow mode takes in new snapshots at epoch boundaries only (rank 0's choice, through
 * the {@link SnapshotAgreement}). Iterate from one thread; a new iteration ends the previous one.
 */
public final class BatchLoader implements Iterable<List<ReadSample>>, AutoCloseable {

    private final ReaderOptions options;
    private final ObjectStore store;
    private final OwnedCache cache;
    private final EpochReader reader;
    private Epoch current;

    private BatchLoader(ReaderOptions options, ObjectStore store, OwnedCache cache, EpochReader reader) {
        this.options = options;
        this.store = store;
        this.cache = cache;
        this.reader = reader;
    }

    /** A loader with its own cache (the options' directory, or a temporary one), the system clock and real sleeps. */
    public static BatchLoader open(ObjectStore store, ReaderOptions options) {
        OwnedCache cache = OwnedCache.open(store, options);
        try {
            return open(store, options, cache, Clock.systemUTC(), Sleeper.SYSTEM, SnapshotAgreement.SINGLE_PROCESS);
        } catch (RuntimeException e) {
            cache.close();
            throw e;
        }
    }

    /** A loader on a shared cache, with an injected clock, sleeper (new-only polling) and snapshot agreement. */
    public static BatchLoader open(ObjectStore store, ReaderOptions options, ShardCache cache, Clock clock, Sleeper sleeper,
                                   SnapshotAgreement agreement) {
        return open(store, options, OwnedCache.borrowed(Objects.requireNonNull(cache, "cache")), clock, sleeper, agreement);
    }

    private static BatchLoader open(ObjectStore store, ReaderOptions options, OwnedCache cache, Clock clock, Sleeper sleeper,
                                    SnapshotAgreement agreement) {
        EpochReader reader = new EpochReader(Objects.requireNonNull(store, "store"), options, Objects.requireNonNull(clock, "clock"),
                Objects.requireNonNull(sleeper, "sleeper"), Objects.requireNonNull(agreement, "agreement"));
        return new BatchLoader(options, store, cache, reader);
    }

    /** The epoch the next iteration reads. */
    public long epoch() {
        return reader.epoch();
    }

    /** The epoch of the next iteration. Another epoch forgets a loaded state; the same keeps it. */
    public void setEpoch(long epoch) {
        reader.setEpoch(epoch);
    }

    /**
     * Begins the epoch ({@link #epoch()}, or a loaded state's rest of one): pins its snapshots and
     * starts the producers. Ends an iteration still running.
     */
    @Override
    public Epoch iterator() {
        if (current != null) {
            current.close();
        }
        EpochPlan plan = reader.begin(options.rank(), options.worldSize(), options.batchSize());
        RankShare share = plan.share(options.rank(), options.worldSize());
        current = new Epoch(new OrderedBatches(plan.order(), share, options.batchSize(), options.workers(),
                () -> new RowReader(cache.cache(), store, options.fetch())), share);
        return current;
    }

    /** Where the job is: after {@code k} batches of this epoch, the same on every rank in step. */
    public ReadState state() {
        return reader.state();
    }

    /** Resume point for the next iteration: the state's epoch, snapshots and consumed count. */
    public void loadState(ReadState state) {
        loadState(state, false);
    }

    /** As {@link #loadState(ReadState)}; {@code allowSnapshotChange}: go on over this loader's snapshot if the state names another. */
    public void loadState(ReadState state, boolean allowSnapshotChange) {
        reader.load(state, allowSnapshotChange);
    }

    public ShardCache cache() {
        return cache.cache();
    }

    /** Stops the producers and removes the temporary cache directory, if this loader made one. */
    @Override
    public void close() {
        if (current != null) {
            current.close();
        }
        cache.close();
    }

    /** One epoch's batches for this rank, in order; records each one handed out for {@link #state()}. */
    public final class Epoch implements Iterator<List<ReadSample>>, AutoCloseable {

        private final OrderedBatches batches;
        private final RankShare share;
        private long delivered;

        private Epoch(OrderedBatches batches, RankShare share) {
            this.batches = batches;
            this.share = share;
        }

        /** Batches this rank gets in this epoch (or its resumed rest): the same on every rank. */
        public long batchCount() {
            return share.batchCount(options.batchSize());
        }

        /** Samples this rank gets, of which {@link #padding()} repeat earlier ones. */
        public long samples() {
            return share.length();
        }

        public long padding() {
            return share.padding();
        }

        @Override
        public boolean hasNext() {
            boolean more = batches.hasNext();
            if (!more) {
                batches.close();
            }
            return more;
        }

        @Override
        public List<ReadSample> next() {
            List<ReadSample> batch = batches.next();
            delivered++;
            if (current == this) {
                reader.delivered(delivered);
            }
            return batch;
        }

        @Override
        public void close() {
            batches.close();
        }
    }
}
