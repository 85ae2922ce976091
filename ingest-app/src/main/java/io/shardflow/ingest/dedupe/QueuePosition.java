package io.shardflow.ingest.dedupe;

import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What {@link SequenceFilter} keeps per device queue and input partition: the highest seq seen and
 * the broker time of the last record of that queue ({@code lastSeenMs}), by which an idle entry
 * expires. Stored as two big-endian longs; a value of the first release is the seq alone (8 bytes),
 * read with {@link #UNKNOWN} as its last-seen time.
 */
public record QueuePosition(long seq, long lastSeenMs) {

    /** The last-seen time of an entry written before it was kept: the next sweep starts its clock. */
    public static final long UNKNOWN = -1;

    QueuePosition seen(long seqSeen, long timestampMs) {
        return new QueuePosition(Math.max(seq, seqSeen), Math.max(lastSeenMs, timestampMs));
    }

    /** The store's serde: 16 bytes written, 8 (the first release) or 16 read. */
    public static final class StoreSerde implements Serde<QueuePosition> {

        @Override
        public Serializer<QueuePosition> serializer() {
            return (topic, position) -> position == null ? null
                    : ByteBuffer.allocate(16).putLong(position.seq()).putLong(position.lastSeenMs()).array();
        }

        @Override
        public Deserializer<QueuePosition> deserializer() {
            return (topic, bytes) -> {
                if (bytes == null) {
                    return null;
                }
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                return switch (bytes.length) {
                    case 8 -> new QueuePosition(buffer.getLong(), UNKNOWN);
                    case 16 -> new QueuePosition(buffer.getLong(), buffer.getLong());
                    default -> throw new IllegalStateException("a queue position of " + bytes.length + " bytes; 8 or 16 expected");
                };
            };
        }
    }
}
