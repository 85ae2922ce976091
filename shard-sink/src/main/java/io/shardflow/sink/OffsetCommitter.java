package io.shardflow.sink;

import io.shardflow.sink.commit.OffsetTracker;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits to the consumer group the offsets the {@link OffsetTracker} allows, which never pass a
 * shard that is not yet in the commit log (docs/ARCHITECTURE.md, invariant 1). A refused or failed
 * commit is not an error: the offsets stay committable, or the partitions' new owner replays.
 */
final class OffsetCommitter {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommitter.class);

    private final Consumer<?, ?> consumer;
    private final OffsetTracker offsets;

    OffsetCommitter(Consumer<?, ?> consumer, OffsetTracker offsets) {
        this.consumer = consumer;
        this.offsets = offsets;
    }

    void commit() {
        Map<TopicPartition, OffsetAndMetadata> committable = offsets.committable();
        if (committable.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(committable);
            offsets.markCommitted(committable);
        } catch (CommitFailedException | RebalanceInProgressException e) {
            // We lost (or are losing) the partitions: possibly we were paused past the session timeout.
            // Whatever we committed to the log is idempotent; the new owner replays from the last offsets.
            LOG.warn("offset commit refused, partitions moved: {}", e.getMessage());
        } catch (RetriableException e) {
            // The broker is restarting or unreachable: the offsets stay committable and go with the next round.
            LOG.warn("offset commit failed, retrying on the next round: {}", e.toString());
        }
    }
}
