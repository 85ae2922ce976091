package io.shardflow.gateway.quota;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.Optional;

/**
 * Failed authentications per client address: {@code perMinute} of them, refilled evenly over a
 * minute. An address over the limit is refused for as long as it takes one failure to refill.
 */
public final class FailureLimiter {

    private final long perMinute;
    private final TimeMeter time;
    private final Cache<String, Bucket> buckets;

    public FailureLimiter(long perMinute, TimeMeter time) {
        this.perMinute = perMinute;
        this.time = time;
        this.buckets = Caffeine.newBuilder().maximumSize(100_000).expireAfterAccess(Duration.ofMinutes(10)).executor(Runnable::run).build();
    }

    /** How long {@code address} must wait, or empty when it may try. */
    public Optional<Duration> blockedFor(String address) {
        Bucket bucket = buckets.getIfPresent(address);
        if (bucket == null) {
            return Optional.empty();
        }
        var estimate = bucket.estimateAbilityToConsume(1);
        return estimate.canBeConsumed() ? Optional.empty() : Optional.of(Duration.ofNanos(estimate.getNanosToWaitForRefill()));
    }

    public void recordFailure(String address) {
        buckets.get(address, key -> Bucket.builder().addLimit(limit -> limit.capacity(perMinute).refillGreedy(perMinute, Duration.ofMinutes(1)))
                .withCustomTimePrecision(time).build()).tryConsume(1);
    }
}
