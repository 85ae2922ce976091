package io.shardflow.sink.flow;

import io.shardflow.dataset.retry.Backoff;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.apache.kafka.common.TopicPartition;

/**
 * When the sink stops taking new data, and when it next retries the work it holds.
 *
 * <p>Outage: pending sealed shards could not be uploaded or committed even after the
 * {@link io.shardflow.dataset.retry.Retrier}'s bounded attempts. Every assigned partition is paused
 * (the consumer keeps polling, so the instance stays in its group) and the pending work is retried
 * with the project's capped exponential {@link Backoff} (with jitter). The first success ends the outage.
 *
 * <p>Spool budget: while the spool holds more than {@code spoolLimitBytes}, partitions that hold no
 * open shard are paused, since reading them can only open new shards. Partitions that do hold open
 * shards keep flowing: only their seal markers can release spool space, so pausing them would wait
 * forever. Open shards alone are bounded by ingest-app's seal policy (lanes x shard.max.bytes).
 *
 * <p>Not thread-safe: the poll loop owns it.
 */
public final class Backpressure {

    private final Backoff backoff;
    private final long spoolLimitBytes;
    private final LongSupplier nanoTime;
    private final RandomGenerator random;

    private boolean outage;
    private int failures;
    private long outageStartNanos;
    private long nextAttemptNanos;

    public Backpressure(Duration firstBackoff, Duration maxBackoff, long spoolLimitBytes, LongSupplier nanoTime,
                        RandomGenerator random) {
        if (firstBackoff.isNegative() || firstBackoff.isZero() || maxBackoff.compareTo(firstBackoff) < 0) {
            throw new IllegalArgumentException("need 0 < firstBackoff <= maxBackoff, got " + firstBackoff + " and " + maxBackoff);
        }
        this.backoff = new Backoff(firstBackoff, maxBackoff);
        this.spoolLimitBytes = spoolLimitBytes;
        this.nanoTime = nanoTime;
        this.random = random;
    }

    public static Backpressure system(Duration firstBackoff, Duration maxBackoff, long spoolLimitBytes) {
        return new Backpressure(firstBackoff, maxBackoff, spoolLimitBytes, System::nanoTime, RandomGenerator.getDefault());
    }

    public boolean inOutage() {
        return outage;
    }

    /** Whether pending work may be tried now: always outside an outage, after the backoff inside one. */
    public boolean retryDue() {
        return !outage || nanoTime.getAsLong() - nextAttemptNanos >= 0;
    }

    /**
     * Pending work failed (again): starts or continues the outage.
     *
     * @return how long until the next attempt
     */
    public Duration failed() {
        long now = nanoTime.getAsLong();
        if (!outage) {
            outage = true;
            outageStartNanos = now;
            failures = 0;
        }
        failures++;
        Duration wait = backoff.delay(failures, random);
        nextAttemptNanos = now + wait.toNanos();
        return wait;
    }

    /**
     * Pending work went through: ends the outage.
     *
     * @return how long the outage lasted, or zero if there was none
     */
    public Duration recovered() {
        if (!outage) {
            return Duration.ZERO;
        }
        outage = false;
        failures = 0;
        return Duration.ofNanos(nanoTime.getAsLong() - outageStartNanos);
    }

    /** Attempts that failed in the current outage. */
    public int failures() {
        return outage ? failures : 0;
    }

    public boolean overSpoolBudget(long spoolBytes) {
        return spoolBytes > spoolLimitBytes;
    }

    /** The partitions that should be paused now. */
    public Set<TopicPartition> toPause(Set<TopicPartition> assigned, Set<TopicPartition> holdingOpenShards, long spoolBytes) {
        if (outage) {
            return Set.copyOf(assigned);
        }
        if (!overSpoolBudget(spoolBytes)) {
            return Set.of();
        }
        Set<TopicPartition> pause = new HashSet<>(assigned);
        pause.removeAll(holdingOpenShards);
        return pause;
    }
}
