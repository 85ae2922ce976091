package io.shardflow.sink.source;

import com.microsoft.kiota.ApiException;
import io.shardflow.schemas.Sample;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * One consumer of the samples topic and what it has read but not yet handed on. A shard's read ends
 * at its last record, mid-way through what the consumer fetched; the next shard of the same partition
 * usually starts right there. So the reader keeps its partition and the records it polled past the
 * shard's end ({@link #carried}), instead of seeking, which drops the consumer's fetched data and has
 * the broker send the same bytes again (up to one fetch per shard: a third of a 12 MiB shard with
 * 4 MiB fetches). Memory: at most one poll's records (one fetch) per reader, besides the consumer's own
 * buffer. Not thread-safe: the pool hands a reader to one read at a time.
 */
final class SampleReader {

    /**
     * How many offsets a read may step over instead of seeking: records of other lanes between the
     * reader's position and the next shard's first record are read and skipped up to this many, since a
     * seek costs the consumer's buffered fetch (docs/ARCHITECTURE.md § 4, step 2).
     */
    static final long SKIP_WITHOUT_SEEK = 64;

    final Consumer<byte[], byte[]> consumer;
    private final Deserializer<Object> deserializer;
    private final Deque<ConsumerRecord<byte[], byte[]>> carried = new ArrayDeque<>();
    private TopicPartition assigned;

    SampleReader(Consumer<byte[], byte[]> consumer, Deserializer<Object> deserializer) {
        this.consumer = consumer;
        this.deserializer = deserializer;
    }

    /** Whether this reader holds {@code source} and can start a read at {@code first} without a seek. */
    boolean continuesAt(TopicPartition source, long first) {
        if (!source.equals(assigned)) {
            return false;
        }
        OptionalLong next = nextOffset();
        if (next.isEmpty() || first < next.getAsLong()) {
            return false;
        }
        boolean alreadyPolled = !carried.isEmpty() && first <= carried.peekLast().offset() + 1;
        return alreadyPolled || first - next.getAsLong() <= SKIP_WITHOUT_SEEK;
    }

    /**
     * Positions the reader to read {@code source} from {@code first}: on from where it is when it can,
     * else a seek. True when it went on without a seek.
     */
    boolean positionAt(TopicPartition source, long first) {
        if (continuesAt(source, first)) {
            return true;
        }
        release();
        consumer.assign(List.of(source));
        assigned = source;
        consumer.seek(source, first);
        return false;
    }

    /** The offset of the next record this reader hands on: the first carried one, else the consumer's position. */
    private OptionalLong nextOffset() {
        if (!carried.isEmpty()) {
            return OptionalLong.of(carried.peekFirst().offset());
        }
        try {
            // Known locally once assigned and positioned (after a seek or a poll): no round trip.
            return OptionalLong.of(consumer.position(assigned, Duration.ZERO));
        } catch (RuntimeException unknown) {
            return OptionalLong.empty();
        }
    }

    /** Records carried over from an earlier poll, to be read before polling again. */
    Deque<ConsumerRecord<byte[], byte[]>> carried() {
        return carried;
    }

    /** Keeps the records of a poll that come after the one a read stopped at, for the next read of the partition. */
    void carry(List<ConsumerRecord<byte[], byte[]>> rest) {
        carried.addAll(rest);
    }

    /** Gives the partition back and forgets what was read ahead: after a failure, or to read another partition. */
    void release() {
        carried.clear();
        assigned = null;
        consumer.assign(List.of());
    }

    /** The partition this reader holds between reads, or null. */
    TopicPartition assigned() {
        return assigned;
    }

    void close() {
        consumer.close();
        deserializer.close();
    }

    /** Decodes a named record; it was a valid sample when ingest-app accepted it. */
    Sample decode(ConsumerRecord<byte[], byte[]> record) {
        String where = record.topic() + "-" + record.partition() + "@" + record.offset();
        if (record.value() == null) {
            throw new SourceRecordGoneException("record " + where + " has no value");
        }
        Object value;
        try {
            value = deserializer.deserialize(record.topic(), record.headers(), record.value());
        } catch (RuntimeException e) {
            if (schemaNotFound(e)) {
                throw new SourceRecordGoneException("the schema of record " + where + " is no longer in the registry");
            }
            throw new SourceUnavailableException("cannot decode record " + where + ": " + e.getMessage(), e);
        }
        if (value instanceof Sample sample) {
            return sample;
        }
        throw new SourceRecordGoneException("record " + where + " is not a sample: "
                + (value == null ? "null" : value.getClass().getName()));
    }

    private static boolean schemaNotFound(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ApiException api && api.getResponseStatusCode() == 404) {
                return true;
            }
        }
        return false;
    }
}
