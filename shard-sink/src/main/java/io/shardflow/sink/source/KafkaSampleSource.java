package io.shardflow.sink.source;

import com.microsoft.kiota.ApiException;
import io.shardflow.schemas.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SortedSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads a shard's samples straight from the samples topic: assign the lane's partition, seek to the
 * first named offset, read forward to the last, hand on the named records as they arrive and keep
 * none (a 1 GiB shard never sits in the heap). A shard's records sit in
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
     * @param timeout       how long one read may go without a record from the broker before it counts as an outage
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
    public void read(int partition, SortedSet<Long> offsets, java.util.function.Consumer<SourcedSample> each) {
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
            read(reader, source, offsets, each);
        } catch (TimeoutException e) {
            throw new SourceUnavailableException("broker did not answer reading " + source + ": " + e.getMessage(), e);
        } catch (InvalidOffsetException e) {
            // The first named record is below the log start: retention deleted it (the read seeks without asking the bounds).
            requireInLog(reader, source, offsets.first(), offsets.last());
            throw new SourceRecordGoneException("records of " + source + " from offset " + offsets.first()
                    + " are no longer in the topic: " + e.getMessage());
        } finally {
            reader.consumer.assign(List.of());
            readers.add(reader);
        }
    }

    /**
     * Seeks straight to the first named offset: the log's bounds are asked for (two round trips) only
     * when the read goes wrong, a gap or a quiet broker, to tell a record that is gone from one that
     * is late.
     */
    private void read(Reader reader, TopicPartition source, SortedSet<Long> offsets,
            java.util.function.Consumer<SourcedSample> each) {
        long first = offsets.first();
        long last = offsets.last();
        reader.consumer.seek(source, first);
        Iterator<Long> wanted = offsets.iterator();
        long next = wanted.next();
        long deadline = nanoTime.getAsLong() + timeout.toNanos();
        boolean boundsChecked = false;
        while (reader.consumer.position(source, timeout) <= last) {
            if (nanoTime.getAsLong() - deadline > 0) {
                throw new SourceUnavailableException("reading " + source + " from " + first + " to " + last + " took longer than "
                        + timeout, null);
            }
            ConsumerRecords<byte[], byte[]> polled = reader.consumer.poll(POLL);
            if (!polled.isEmpty()) {
                // The limit is on waiting for the broker, not on the whole read: a large shard streams for a while.
                deadline = nanoTime.getAsLong() + timeout.toNanos();
            } else if (!boundsChecked) {
                requireInLog(reader, source, first, last);
                boundsChecked = true;
            }
            for (ConsumerRecord<byte[], byte[]> record : polled) {
                // A partition's records come in increasing offsets: passing a wanted offset means the log has no record there.
                if (record.offset() > next) {
                    requireInLog(reader, source, first, last);
                    throw noRecord(source, next);
                }
                if (record.offset() == next) {
                    each.accept(new SourcedSample(next, reader.decode(record)));
                    if (!wanted.hasNext()) {
                        return;
                    }
                    next = wanted.next();
                }
            }
        }
        throw noRecord(source, next);
    }

    /** Fails when the named range is not within the partition's log now: deleted by retention, or past its end. */
    private void requireInLog(Reader reader, TopicPartition source, long first, long last) {
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
    }

    private static SourceRecordGoneException noRecord(TopicPartition source, long offset) {
        return new SourceRecordGoneException("no record at " + source + "@" + offset + " (the log has a gap there)");
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
