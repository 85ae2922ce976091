package io.shardflow.dataset.retry;

import io.shardflow.dataset.store.ObjectNotFoundException;
import io.shardflow.dataset.store.ObjectStoreException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounded retries of object-store calls with the project's {@link Backoff} (exponential, with
 * jitter). The bound makes a longer outage surface as an error instead of a silent hang; shard-sink's
 * poll loop turns that error into backpressure: paused partitions and a slower retry of the pending
 * work, never a dead process. {@link ObjectNotFoundException} and anything that is
 * not an {@link ObjectStoreException} are not retried.
 */
public final class Retrier {

    private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

    private final int attempts;
    private final Backoff backoff;
    private final Sleeper sleeper;
    private final Consumer<ObjectStoreException> onFailure;

    public Retrier(int attempts, Duration firstBackoff, Duration maxBackoff, Sleeper sleeper) {
        this(attempts, firstBackoff, maxBackoff, sleeper, failure -> { });
    }

    /** {@code onFailure} hears of every failed attempt, the last included (shard-sink counts them as store errors). */
    public Retrier(int attempts, Duration firstBackoff, Duration maxBackoff, Sleeper sleeper, Consumer<ObjectStoreException> onFailure) {
        this.attempts = attempts;
        this.backoff = new Backoff(firstBackoff, maxBackoff);
        this.sleeper = sleeper;
        this.onFailure = onFailure;
    }

    public <T> T call(String what, Supplier<T> operation) {
        for (int attempt = 1; ; attempt++) {
            try {
                return operation.get();
            } catch (ObjectNotFoundException e) {
                throw e;
            } catch (ObjectStoreException e) {
                onFailure.accept(e);
                if (attempt >= attempts) {
                    throw new ObjectStoreException(e.operation(), e.key(),
                            what + ": gave up after " + attempts + " attempts: " + e.getMessage(), e);
                }
                Duration delay = backoff.delay(attempt, ThreadLocalRandom.current());
                LOG.warn("{} failed (attempt {}/{}), retrying in {} ms: {}", what, attempt, attempts, delay.toMillis(), e.getMessage());
                sleep(delay);
            }
        }
    }

    private void sleep(Duration delay) {
        try {
            sleeper.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ObjectStoreException("retry", "", "interrupted while waiting to retry", e);
        }
    }
}
