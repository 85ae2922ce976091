package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.store.ObjectStoreException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a shard whose first sample arrives (again) is known to be in the commit log already: a
 * replay after a crash or a rebalance, which the sink then skips. An optimisation only: a stale or
 * unknown "no" is safe because the commit recognises a replayed shard (docs/ARCHITECTURE.md,
 * invariant 1). So while the object store is failing the answer is "no" without asking, rather
 * than blocking the poll loop on retries for every shard: during an outage, and for a quiet period
 * after a check that failed.
 */
final class ReplayCheck {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayCheck.class);

    /** After a failed check, how long the object store is not asked again. */
    static final Duration QUIET_PERIOD = Duration.ofSeconds(10);

    private final Predicate<ShardId> isCommitted;
    private final BooleanSupplier storeInOutage;
    private final LongSupplier nanoTime;
    private long quietUntil;

    /**
     * @param isCommitted   asks the commit log (with bounded retries); may throw {@link ObjectStoreException}
     * @param storeInOutage whether the sink is in an object-store outage now
     * @param nanoTime      a monotonic clock in nanoseconds
     */
    ReplayCheck(Predicate<ShardId> isCommitted, BooleanSupplier storeInOutage, LongSupplier nanoTime) {
        this.isCommitted = isCommitted;
        this.storeInOutage = storeInOutage;
        this.nanoTime = nanoTime;
        this.quietUntil = nanoTime.getAsLong();
    }

    boolean knownCommitted(ShardId shard) {
        if (storeInOutage.getAsBoolean() || nanoTime.getAsLong() - quietUntil < 0) {
            return false;
        }
        try {
            return isCommitted.test(shard);
        } catch (ObjectStoreException e) {
            LOG.warn("cannot read the commit log to check whether shard {} is a replay; spooling it: {}", shard, e.getMessage());
            quietUntil = nanoTime.getAsLong() + QUIET_PERIOD.toNanos();
            return false;
        }
    }
}
