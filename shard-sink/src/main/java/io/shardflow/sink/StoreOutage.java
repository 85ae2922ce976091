package io.shardflow.sink;

import io.shardflow.sink.flow.Backpressure;
import java.time.Duration;
import io.shardflow.sink.source.SourceUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an outage does to the sink beyond {@link Backpressure}'s decisions: the outage counter and
 * the log lines an operator reads (one when it starts, one per failed retry, one when it ends). The
 * object store is the usual cause; the broker or registry failing while a shard's samples are read
 * from the samples topic is handled the same way, and the log line names which.
 */
final class StoreOutage {

    private static final Logger LOG = LoggerFactory.getLogger(StoreOutage.class);

    private final Backpressure backpressure;
    private final SinkMetrics metrics;

    StoreOutage(Backpressure backpressure, SinkMetrics metrics) {
        this.backpressure = backpressure;
        this.metrics = metrics;
    }

    /** Finishing the pending shards failed: start or continue the outage. */
    void failed(RuntimeException cause, int pendingShards, int assignedPartitions) {
        boolean starting = !backpressure.inOutage();
        Duration wait = backpressure.failed();
        if (starting) {
            metrics.outages.increment();
            LOG.warn("{} unavailable, backpressure on: {} sealed shards pending, {} partitions paused, "
                    + "retrying in {} ms: {}", what(cause), pendingShards, assignedPartitions, wait.toMillis(), cause.getMessage());
        } else {
            LOG.warn("{} still unavailable (attempt {}): {} sealed shards pending, retrying in {} ms: {}",
                    what(cause), backpressure.failures(), pendingShards, wait.toMillis(), cause.getMessage());
        }
    }

    private static String what(RuntimeException cause) {
        return cause instanceof SourceUnavailableException ? "samples topic or schema registry" : "object store";
    }

    /** The pending shards are committed (or went with their partitions): end the outage, if any. */
    void ended() {
        Duration outage = backpressure.recovered();
        if (!outage.isZero()) {
            LOG.info("backpressure off after {} ms: pending shards are committed, resuming partitions", outage.toMillis());
        }
    }
}
