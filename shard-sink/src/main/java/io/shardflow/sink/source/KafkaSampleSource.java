package io.shardflow.sink.source;

import com.microsoft.kiota.ApiException;
import io.shardflow.schemas.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads a shard's samples straight from the samples topic: assign the lane's partition, seek to the
 * first named offset, read forward to the last, keep only the named records. A shard's records sit in
 * one partition in increasing offsets, interleaved with other lanes' and with rejected records, so
 * this is one sequential read. The consumers read committed data only, have no group and never commit
 * offsets: the decisions on shard-assignments, not this read, are what the sink's offsets track.
 * One consumer per concurrent reader, from a fixed pool (a Kafka consumer is single-threaded).
 */
public final class KafkaSampleSource implements SampleSource, AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(200);

    private final String topic;
    private final BlockingQueue<Reader> readers;
    private final List<Reader> all = new ArrayList<>();
    private final Duration timeout;
    private final LongSupplier nanoTime;

    /**
     * @param consumers     one per concurrent read; configured read_committed, no group, auto.offset.reset=none
     * @param deserializers the samples topic's value deserializer, one made per consumer
     * @param timeout       how long one read may wait on the broker before it counts as an outage
     */
    public KafkaSampleSource(String topic, List<? extends Consumer<byte[], byte[]>> consumers,
                             Supplier<Deserializer<Object>> deserializers, Duration timeout, LongSupplier nanoTime) {
        this.topic = topic;
        this.timeout = timeout;
        this.nanoTime = nanoTime;
        this.readers = new ArrayBlockingQueue<>(consumers.size());
        for (Consumer<byte[], byte[]> consumer : consumers) {
            Reader reader = new Reader(consumer, deserializers.get());
            all.add(reader);
            readers.add(reader);
        }
    }

    @Override
    public Map<Long, Sample> read(int partition, SortedSet<Long> offsets) {
        Reader reader;
        try {
            reader = readers.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceUnavailableException("interrupted while waiting for a samples reader", e);
        }
        TopicPartition source = new TopicPartition(topic, partition);
        try {
            reader.consumer.assign(List.of(source));
            return read(reader, source, offsets);
        } catch (TimeoutException e) {
            throw new SourceUnavailableException("broker did not answer reading " + source + ": " + e.getMessage(), e);
        } catch (InvalidOffsetException e) {
            // Retention deleted the records between the range check and the fetch.
            throw new SourceRecordGoneException("records of " + source + " from offset " + offsets.first()
                    + " are no longer in the topic: " + e.getMessage());
        } finally {
            reader.consumer.assign(List.of());
            readers.add(reader);
        }
    }

    private Map<Long, Sample> read(Reader reader, TopicPartition source, SortedSet<Long> offsets) {
        long first = offsets.first();
        long last = offsets.last();
        long start = reader.consumer.beginningOffsets(List.of(source), timeout).get(source);
        long end = reader.consumer.endOffsets(List.of(source), timeout).get(source);
        if (first < start) {
            throw new SourceRecordGoneException("record " + source + "@" + first + " is gone: the topic now starts at offset "
                    + start + " (retention of the samples topic is shorter than the sink's lag)");
        }
        if (last >= end) {
            throw new SourceRecordGoneException("record " + source + "@" + last + " is beyond the end of the topic (offset "
                    + end + "); was the samples topic recreated?");
        }
        reader.consumer.seek(source, first);
        Map<Long, Sample> found = new HashMap<>(offsets.size() * 2);
        long deadline = nanoTime.getAsLong() + timeout.toNanos();
        while (reader.consumer.position(source, timeout) <= last) {
            if (nanoTime.getAsLong() - deadline > 0) {
                throw new SourceUnavailableException("reading " + source + " from " + first + " to " + last + " took longer than "
                        + timeout, null);
            }
            for (ConsumerRecord<byte[], byte[]> record : reader.consumer.poll(POLL)) {
                if (record.offset() <= last && offsets.contains(record.offset())) {
                    found.put(record.offset(), reader.decode(record));
                }
            }
        }
        for (long offset : offsets) {
            if (!found.containsKey(offset)) {
                throw new SourceRecordGoneException("no record at " + source + "@" + offset + " (the log has a gap there)");
            }
        }
        return found;
    }

    @Override
    public void close() {
        for (Reader reader : all) {
            reader.consumer.close();
            reader.deserializer.close();
        }
    }

    private record Reader(Consumer<byte[], byte[]> consumer, Deserializer<Object> deserializer) {

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
}
