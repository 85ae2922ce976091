package io.shardflow.sink.write;

import io.shardflow.dataset.store.ObjectNotFoundException;
import io.shardflow.dataset.store.ObjectStoreException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounded retries with exponential backoff and jitter for object-store calls: the n-th wait is
 * drawn from [b/2, b] with b = firstBackoff * 2^(n-1), capped at maxBackoff. Jitter keeps several
 * sink instances from hammering a recovering S3 server in lockstep; the bound makes a longer outage
 * surface as an error instead of a silent hang, and the sink's poll loop turns that error into
 * backpressure ({@link io.shardflow.sink.flow.Backpressure}): paused partitions and a slower retry
 * of the pending work, never a dead process. {@link ObjectNotFoundException} and anything that is
 * not an {@link ObjectStoreException} are not retried.
 */
public final class Retrier {

    private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

    private final int attempts;
    private final Duration firstBackoff;
    private final Duration maxBackoff;
    private final Sleeper sleeper;

    public Retrier(int attempts, Duration firstBackoff, Duration maxBackoff, Sleeper sleeper) {
        this.attempts = attempts;
        this.firstBackoff = firstBackoff;
        this.maxBackoff = maxBackoff;
        this.sleeper = sleeper;
    }

    public <T> T call(String what, Supplier<T> operation) {
        long backoff = Math.min(firstBackoff.toMillis(), maxBackoff.toMillis());
        for (int attempt = 1; ; attempt++) {
            try {
                return operation.get();
            } catch (ObjectNotFoundException e) {
                throw e;
            } catch (ObjectStoreException e) {
                if (attempt >= attempts) {
                    throw new ObjectStoreException(e.operation(), e.key(),
                            what + ": gave up after " + attempts + " attempts: " + e.getMessage(), e);
                }
                long delay = ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1);
                LOG.warn("{} failed (attempt {}/{}), retrying in {} ms: {}", what, attempt, attempts, delay, e.getMessage());
                sleeper.sleep(Duration.ofMillis(delay));
                backoff = Math.min(backoff * 2, maxBackoff.toMillis());
            }
        }
    }

    /** How the retrier waits; tests pass one that records instead of sleeping. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration);

        Sleeper THREAD = duration -> {
            try {
                Thread.sleep(duration.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ObjectStoreException("retry", "", "interrupted while waiting to retry", e);
            }
        };
    }
}
