package io.shardflow.dataset.retry;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with jitter, the one used for every retry: after the n-th failure the
 * wait is drawn from [b/2, b] with b = first * 2^(n-1), at most {@code max}. Jitter keeps several
 * instances from hammering a recovering server in lockstep.
 */
public final class Backoff {

    private final long firstMillis;
    private final long maxMillis;

    public Backoff(Duration first, Duration max) {
        if (first.isNegative() || max.isNegative()) {
            throw new IllegalArgumentException("backoff must not be negative, got " + first + " and " + max);
        }
        this.firstMillis = first.toMillis();
        this.maxMillis = max.toMillis();
    }

    /** The wait after {@code failures} (at least 1) failures in a row. */
    public Duration delay(int failures, RandomGenerator random) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be at least 1, got " + failures);
        }
        long ceiling = maxMillis;
        if (failures - 1 < Long.numberOfLeadingZeros(Math.max(firstMillis, 1)) - 1) {
            ceiling = Math.min(maxMillis, firstMillis << (failures - 1));
        }
        return Duration.ofMillis(random.nextLong(ceiling / 2, ceiling + 1));
    }
}
