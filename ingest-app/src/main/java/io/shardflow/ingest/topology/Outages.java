package io.shardflow.ingest.topology;

import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.ingest.validate.RegistryUnavailableException;
import org.apache.kafka.common.KafkaException;

/**
 * Tells an outage from a bad record. An outage (registry, object store or Kafka itself failing)
 * says nothing about the record in hand, so it must fail the task and be retried from the last
 * commit, never dead-letter the record; anything else thrown while handling one record is that
 * record's problem (docs/ARCHITECTURE.md, invariant 8).
 */
public final class Outages {

    private Outages() {
    }

    /** Whether a failure while handling one record is not the record's fault. */
    public static boolean isOutage(Throwable failure) {
        // State stores, the record collector and task migration all speak KafkaException.
        return failure instanceof KafkaException || isDependencyOutage(failure);
    }

    /**
     * Whether the registry or the object store failed, anywhere in the cause chain: the stream thread
     * may be replaced and retry. (Streams wraps every failure in a KafkaException of its own, so the
     * chain, not the outer type, decides.)
     */
    public static boolean isDependencyOutage(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RegistryUnavailableException || cause instanceof ObjectStoreException) {
                return true;
            }
        }
        return false;
    }
}
