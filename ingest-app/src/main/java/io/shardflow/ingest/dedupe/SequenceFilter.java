package io.shardflow.ingest.dedupe;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
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
 * (docs/ARCHITECTURE.md § 1).
 *
 * <p>Bounded: an entry expires once no record of its queue reached this partition for
 * {@code horizon} of broker time ({@link #expire}, on stream time), so devices and queues that are
 * gone do not stay forever. A resend that comes later would be taken as new; the SDKs never send
 * one: an entry that may have reached the broker before is not sent again once it was queued longer
 * ago than their resend horizon (7 days by default, docs/EDGE-QUEUE.md, Resend horizon), which must
 * stay below this one by more than the devices' clock error.
 */
public final class SequenceFilter {

    private final KeyValueStore<String, QueuePosition> positions;
    private final Duration horizon;

    public SequenceFilter(KeyValueStore<String, QueuePosition> positions, Duration horizon) {
        this.positions = positions;
        this.horizon = horizon;
    }

    /**
     * Records {@code position} (seen at broker time {@code timestampMs}) and tells whether an equal
     * or later entry of its queue was already seen.
     */
    public boolean isResend(String dataset, String version, String deviceId, QueueSequence position, long timestampMs) {
        // Validation refuses control characters in the first three, and the queue id is [A-Za-z0-9_-].
        String key = dataset + '\u0000' + version + '\u0000' + deviceId + '\u0000' + position.queueId();
        QueuePosition seen = positions.get(key);
        // a resend, too, keeps its queue's entry alive: the queue is still sending
        positions.put(key, seen == null ? new QueuePosition(position.seq(), timestampMs) : seen.seen(position.seq(), timestampMs));
        return seen != null && position.seq() <= seen.seq();
    }

    /**
     * Drops the entries whose queue sent nothing for longer than the horizon before {@code streamTimeMs};
     * an entry of the first release (no last-seen time) starts its clock now. Returns how many went.
     */
    public int expire(long streamTimeMs) {
        long oldest = streamTimeMs - horizon.toMillis();
        List<String> expired = new ArrayList<>();
        List<KeyValue<String, QueuePosition>> undated = new ArrayList<>();
        try (KeyValueIterator<String, QueuePosition> all = positions.all()) {
            all.forEachRemaining(entry -> {
                if (entry.value.lastSeenMs() == QueuePosition.UNKNOWN) {
                    undated.add(KeyValue.pair(entry.key, new QueuePosition(entry.value.seq(), streamTimeMs)));
                } else if (entry.value.lastSeenMs() < oldest) {
                    expired.add(entry.key);
                }
            });
        }
        expired.forEach(positions::delete);
        positions.putAll(undated);
        return expired.size();
    }
}
