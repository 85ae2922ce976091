package io.shardflow.sink.source;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.SortedSet;
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
 * first named offset, read forward to the last, hand on the named records as they arrive and keep
 * none (a 1 GiB shard never sits in the heap). A shard's records sit in
 * one partition in increasing offsets, interleaved with other lanes' and with rejected records, so
 * this is one sequential read. The consumers read committed data only, have no group and never commit
 * offsets: the decisions on shard-assignments, not this read, are what the sink's offsets track.
 * One consumer per concurrent reader, from a fixed pool (a Kafka consumer is single-threaded). A reader
 * keeps its partition between reads, and a read goes to the idle reader that stopped where it starts,
 * so the shards of a lane, read one after another, are one stream from the broker ({@link SampleReader}).
 */
public final class KafkaSampleSource implements SampleSource, AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(200);

    private final String topic;
    private final List<SampleReader> idle = new ArrayList<>();
    private final List<SampleReader> all = new ArrayList<>();
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
        for (Consumer<byte[], byte[]> consumer : consumers) {
            SampleReader reader = new SampleReader(consumer, deserializers.get());
            all.add(reader);
            idle.add(reader);
        }
    }

    @Override
    public void read(int partition, SortedSet<Long> offsets, java.util.function.Consumer<SourcedSample> each) {
        TopicPartition source = new TopicPartition(topic, partition);
        SampleReader reader = take(source, offsets.first());
        boolean positioned = false;
        try {
            boolean wentOn = reader.positionAt(source, offsets.first());
            Wanted wanted = new Wanted(offsets.iterator());
            try {
                read(reader, source, offsets, wanted, each);
            } catch (InvalidOffsetException e) {
                if (!wentOn || wanted.handedOn > 0) {
                    throw e;
                }
                // The reader went on from where its last read stopped, and retention has deleted that
                // position since, though not the records named now (requireInLog below would say so):
                // nothing was handed on, so the read starts over with a seek to its first record.
                requireInLog(reader, source, offsets.first(), offsets.last());
                reader.release();
                reader.positionAt(source, offsets.first());
                read(reader, source, offsets, new Wanted(offsets.iterator()), each);
            }
            positioned = true;
        } catch (TimeoutException e) {
            throw new SourceUnavailableException("broker did not answer reading " + source + ": " + e.getMessage(), e);
        } catch (InvalidOffsetException e) {
            // The first named record is below the log start: retention deleted it (the read seeks without asking the bounds).
            requireInLog(reader, source, offsets.first(), offsets.last());
            throw new SourceRecordGoneException("records of " + source + " from offset " + offsets.first()
                    + " are no longer in the topic: " + e.getMessage());
        } finally {
            if (!positioned) {
                // A failed read (or a failed row) leaves the reader anywhere: it starts over with a seek.
                reader.release();
            }
            giveBack(reader);
        }
    }

    /** An idle reader: the one that can go on at {@code first} of {@code source}, else one holding no partition, else any. */
    private SampleReader take(TopicPartition source, long first) {
        synchronized (idle) {
            while (idle.isEmpty()) {
                try {
                    idle.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SourceUnavailableException("interrupted while waiting for a samples reader", e);
                }
            }
            SampleReader chosen = idle.stream().filter(reader -> reader.continuesAt(source, first)).findFirst()
                    .or(() -> idle.stream().filter(reader -> reader.assigned() == null).findFirst())
                    .orElse(idle.get(0));
            idle.remove(chosen);
            return chosen;
        }
    }

    private void giveBack(SampleReader reader) {
        synchronized (idle) {
            idle.add(reader);
            idle.notifyAll();
        }
    }

    /**
     * Reads on from the reader's position (records carried from its last poll first): the log's bounds
     * are asked for (two round trips) only when the read goes wrong, a gap or a quiet broker, to tell a
     * record that is gone from one that is late. Records polled past the last named one stay with the
     * reader for the next read.
     */
    private void read(SampleReader reader, TopicPartition source, SortedSet<Long> offsets, Wanted wanted,
            java.util.function.Consumer<SourcedSample> each) {
        long first = offsets.first();
        long last = offsets.last();
        Deque<ConsumerRecord<byte[], byte[]>> carried = reader.carried();
        while (!carried.isEmpty()) {
            if (wanted.take(reader, carried.pollFirst(), source, first, last, each)) {
                return;
            }
        }
        long deadline = nanoTime.getAsLong() + timeout.toNanos();
        boolean boundsChecked = false;
        while (reader.consumer.position(source, timeout) <= last) {
            if (nanoTime.getAsLong() - deadline > 0) {
                throw new SourceUnavailableException("reading " + source + " from " + first + " to " + last + " took longer than "
                        + timeout, null);
            }
            List<ConsumerRecord<byte[], byte[]>> polled = reader.consumer.poll(POLL).records(source);
            if (!polled.isEmpty()) {
                // The limit is on waiting for the broker, not on the whole read: a large shard streams for a while.
                deadline = nanoTime.getAsLong() + timeout.toNanos();
            } else if (!boundsChecked) {
                requireInLog(reader, source, first, last);
                boundsChecked = true;
            }
            for (int i = 0; i < polled.size(); i++) {
                if (wanted.take(reader, polled.get(i), source, first, last, each)) {
                    reader.carry(polled.subList(i + 1, polled.size()));
                    return;
                }
            }
        }
        throw noRecord(source, wanted.next);
    }

    /** The named offsets still to come, in order. */
    private final class Wanted {
        private final Iterator<Long> rest;
        private long next;
        private int handedOn;

        Wanted(Iterator<Long> offsets) {
            this.rest = offsets;
            this.next = offsets.next();
        }

        /** Hands the record on if it is the next named one; true once the last named one is handed on. */
        boolean take(SampleReader reader, ConsumerRecord<byte[], byte[]> record, TopicPartition source, long first, long last,
                java.util.function.Consumer<SourcedSample> each) {
            // A partition's records come in increasing offsets: passing a wanted offset means the log has no record there.
            if (record.offset() > next) {
                requireInLog(reader, source, first, last);
                throw noRecord(source, next);
            }
            if (record.offset() < next) {
                return false;
            }
            handedOn++;
            each.accept(new SourcedSample(next, reader.decode(record)));
            if (!rest.hasNext()) {
                return true;
            }
            next = rest.next();
            return false;
        }
    }

    /** Fails when the named range is not within the partition's log now: deleted by retention, or past its end. */
    private void requireInLog(SampleReader reader, TopicPartition source, long first, long last) {
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
        for (SampleReader reader : all) {
            reader.close();
        }
    }
}
