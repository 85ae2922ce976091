package io.shardflow.reader;

import java.time.Duration;

/** Waits between polls of the commit log; tests pass one that advances a fake clock instead. */
@FunctionalInterface
public interface Sleeper {

    Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis());

    void sleep(Duration duration) throws InterruptedException;
}
