package io.shardflow.sink;

import io.shardflow.sink.flow.Backpressure;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pauses and resumes the consumer's partitions as {@link Backpressure} decides (docs/ARCHITECTURE.md,
 * invariant 7): every partition during an object-store outage, the ones without open shards while
 * the spool is over its budget. Idempotent: it only asks the consumer for the difference.
 */
final class PartitionPauser {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionPauser.class);

    private final Consumer<?, ?> consumer;
    private final Backpressure backpressure;
    private final SinkMetrics metrics;

    PartitionPauser(Consumer<?, ?> consumer, Backpressure backpressure, SinkMetrics metrics) {
        this.consumer = consumer;
        this.backpressure = backpressure;
        this.metrics = metrics;
    }

    void apply(Set<TopicPartition> holdingOpenShards, long spoolBytes) {
        Set<TopicPartition> assigned = consumer.assignment();
        if (assigned.isEmpty()) {
            return;
        }
        Set<TopicPartition> wanted = backpressure.toPause(assigned, holdingOpenShards, spoolBytes);
        Set<TopicPartition> paused = consumer.paused();
        Set<TopicPartition> pause = new HashSet<>(wanted);
        pause.removeAll(paused);
        Set<TopicPartition> resume = new HashSet<>(paused);
        resume.removeAll(wanted);
        if (!pause.isEmpty()) {
            consumer.pause(pause);
            LOG.info("paused {} ({})", pause, backpressure.inOutage() ? "object store outage"
                    : "spool holds " + spoolBytes + " bytes, over its budget");
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
            LOG.info("resumed {}", resume);
        }
        metrics.pausedPartitions.set(wanted.size());
    }
}
