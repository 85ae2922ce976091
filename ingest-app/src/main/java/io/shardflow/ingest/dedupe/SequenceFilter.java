package io.shardflow.ingest.dedupe;

import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Drops resends from a producer's durable queue however long after the first copy they come, which
 * the broker-time window of {@link DuplicateFilter} cannot: a device whose link dropped while a
 * record was in flight may resend it days later. Keeps the highest seq seen per (dataset, version,
 * device, queue) in this input partition; a record at or below it is a resend.
 *
 * <p>Sound because the edge SDKs send a queue's entries in seq order, idempotently and with no
 * message time-out, so within a partition the copies the broker holds are always a prefix of what
 * was sent; after a crash or an error the SDK resends everything not acknowledged, in order
 * (docs/ARCHITECTURE.md § 1). The store holds one number per device queue and partition, so it stays
 * small whatever the rate.
 */
public final class SequenceFilter {

    private final KeyValueStore<String, Long> highest;

    public SequenceFilter(KeyValueStore<String, Long> highest) {
        this.highest = highest;
    }

    /** Records {@code position} and tells whether an equal or later entry of its queue was already seen. */
    public boolean isResend(String dataset, String version, String deviceId, QueueSequence position) {
        // Validation refuses control characters in the first three, and the queue id is [A-Za-z0-9_-].
        String key = dataset + '\u0000' + version + '\u0000' + deviceId + '\u0000' + position.queueId();
        Long seen = highest.get(key);
        if (seen != null && position.seq() <= seen) {
            return true;
        }
        highest.put(key, position.seq());
        return false;
    }
}
