package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import java.time.Duration;

/** Waits for the dataset's latest snapshot to hold a number of samples, watching the services meanwhile. */
public final class CommitWatch {

    private static final Duration POLL = Duration.ofMillis(50);

    private CommitWatch() {
    }

    /**
     * Returns the first snapshot holding at least {@code expected} samples; progress counts samples
     * past {@code counted}. Fails if a service dies or {@code timeout} passes.
     */
    public static Snapshot await(CommitLog log, long expected, long counted, ServicePipeline pipeline, Duration timeout, Progress progress)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Snapshot latest = log.latest();
            progress.update(latest.sampleCount() - counted);
            if (latest.sampleCount() >= expected) {
                return latest;
            }
            if (pipeline != null) {
                pipeline.requireAlive();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + latest.sampleCount() + " of " + expected + " samples committed within "
                        + timeout.toSeconds() + " s");
            }
            Thread.sleep(POLL.toMillis());
        }
    }
}
