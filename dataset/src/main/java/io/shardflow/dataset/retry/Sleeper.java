package io.shardflow.dataset.retry;

import java.time.Duration;

/** How code that waits (retries, backoff, polls of the commit log) waits; tests pass one that records or advances a fake clock. */
@FunctionalInterface
public interface Sleeper {

    Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis());

    void sleep(Duration duration) throws InterruptedException;
}
