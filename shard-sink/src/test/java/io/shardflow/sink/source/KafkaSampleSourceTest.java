package io.shardflow.sink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.schemas.Sample;
import io.shardflow.sink.ShardEvents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

class KafkaSampleSourceTest {

    private static final TopicPartition P3 = new TopicPartition("samples", 3);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none");
    private final AtomicLong nanos = new AtomicLong();
    private final KafkaSampleSource source = new KafkaSampleSource("samples", List.of(consumer), KafkaSampleSourceTest::plainAvro,
            Duration.ofSeconds(5), nanos::get);

    /** Stands in for the registry serde: the test records hold plain Avro binary of a Sample. */
    private static Deserializer<Object> plainAvro() {
        return (topic, bytes) -> {
            try {
                return Sample.fromByteBuffer(ByteBuffer.wrap(bytes));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    @Test
    void shouldKeepReadingAStreamLongerThanTheTimeoutWhileRecordsKeepComing() {
        // One record per poll, 4 s apart: 12 s in all against a 5 s limit on waiting for the broker.
        partitionHolds(0, 16);
        for (long offset = 10; offset <= 12; offset++) {
            long next = offset;
            consumer.schedulePollTask(() -> {
                nanos.addAndGet(Duration.ofSeconds(4).toNanos());
                addSample(next);
            });
        }

        Map<Long, Sample> read = read(3, offsets(10L, 11L, 12L));

        assertThat(read.keySet()).containsExactly(10L, 11L, 12L);
        assertThat(nanos.get()).isGreaterThan(Duration.ofSeconds(5).toNanos());
    }

    /** The partition holds sample(n) at each offset n of {@code offsets}, its log spanning [start, end). */
    private void partitionHolds(long start, long end, long... offsets) {
        consumer.updateBeginningOffsets(Map.of(P3, start));
        consumer.updateEndOffsets(Map.of(P3, end));
        consumer.assign(List.of(P3));
        for (long offset : offsets) {
            addSample(offset);
        }
    }

    private void addSample(long offset) {
        try {
            byte[] value = ShardEvents.sample((int) offset).toByteBuffer().array();
            consumer.addRecord(new ConsumerRecord<>(P3.topic(), P3.partition(), offset, new byte[0], value));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static TreeSet<Long> offsets(Long... offsets) {
        return new TreeSet<>(List.of(offsets));
    }

    @Test
    void shouldReturnExactlyTheNamedRecordsSkippingOthersAndGaps() {
        // 11 and 14 belong to other lanes or were dead-lettered; 12 is a gap (a transaction marker).
        partitionHolds(0, 16, 10, 11, 13, 14, 15);

        Map<Long, Sample> read = read(3, offsets(10L, 13L, 15L));

        assertThat(read).containsOnlyKeys(10L, 13L, 15L);
        assertThat(read.keySet()).as("handed on in offset order").containsExactly(10L, 13L, 15L);
        assertThat(read.get(13L)).isEqualTo(ShardEvents.sample(13));
        assertThat(consumer.assignment()).as("the reader keeps its partition for the lane's next shard").containsExactly(P3);
    }

    /** A clock that moves a second each time it is read, so a read that waits for records nobody adds times out. */
    private final AtomicLong ticking = new AtomicLong();
    private final KafkaSampleSource tickingSource = new KafkaSampleSource("samples", List.of(consumer),
            KafkaSampleSourceTest::plainAvro, Duration.ofSeconds(5), () -> ticking.addAndGet(Duration.ofSeconds(1).toNanos()));

    @Test
    void shouldReadTheNextShardOfAPartitionFromWhatTheLastReadPolledWithoutFetchingItAgain() {
        // One poll returns 10..15; the broker (the mock) sends a record once, as after a seek that drops a fetch.
        partitionHolds(0, 16, 10, 11, 12, 13, 14, 15);

        Map<Long, Sample> firstShard = read(tickingSource, offsets(10L, 11L, 12L));
        Map<Long, Sample> nextShard = read(tickingSource, offsets(13L, 15L));

        assertThat(firstShard.keySet()).containsExactly(10L, 11L, 12L);
        assertThat(nextShard.keySet()).containsExactly(13L, 15L);
        assertThat(nextShard.get(15L)).isEqualTo(ShardEvents.sample(15));
    }

    @Test
    void shouldSeekBackWhenAReadStartsBeforeWhereTheReaderStopped() {
        partitionHolds(0, 16, 13, 14);
        assertThat(read(tickingSource, offsets(13L, 14L)).keySet()).containsExactly(13L, 14L);
        // Another dataset's shard on the same partition, earlier offsets: the broker sends them again after a seek.
        addSample(10);
        addSample(11);

        assertThat(read(tickingSource, offsets(10L, 11L)).keySet()).containsExactly(10L, 11L);
    }

    @Test
    void shouldSeekToTheNamedRecordsWhenRetentionDeletedWhereTheReaderStoppedButNotThem() {
        partitionHolds(0, 40, 10, 11, 12);
        assertThat(read(tickingSource, offsets(10L, 11L, 12L)).keySet()).containsExactly(10L, 11L, 12L);
        // While the reader was idle at offset 13, retention moved the log start past it (13 was another lane's record).
        consumer.updateBeginningOffsets(Map.of(P3, 14L));
        addSample(14);
        addSample(15);

        assertThat(read(tickingSource, offsets(14L, 15L)).keySet()).containsExactly(14L, 15L);
    }

    @Test
    void shouldStartOverWithASeekAfterAReadThatFailedHalfWay() {
        partitionHolds(0, 16, 10, 11, 12, 13);
        assertThatThrownBy(() -> tickingSource.read(3, offsets(10L, 11L, 12L), sourced -> {
            if (sourced.offset() == 11L) {
                throw new IllegalStateException("the writer refused row 1");
            }
        })).hasMessageContaining("refused row 1");
        assertThat(consumer.assignment()).as("a failed read gives its partition back").isEmpty();
        consumer.assign(List.of(P3));
        addSample(10);
        addSample(11);
        addSample(12);

        assertThat(read(tickingSource, offsets(10L, 11L, 12L)).keySet()).containsExactly(10L, 11L, 12L);
    }

    @Test
    void shouldReportARecordRetentionDeletedAsGone() {
        partitionHolds(20, 30, 20, 21);

        assertThatThrownBy(() -> read(3, offsets(10L, 21L)))
                .isInstanceOf(SourceRecordGoneException.class)
                .hasMessageContaining("samples-3@10")
                .hasMessageContaining("now starts at offset 20")
                .hasMessageContaining("retention");
    }

    @Test
    void shouldReportAnOffsetBeyondTheEndOfTheTopicAsGone() {
        partitionHolds(0, 16, 15);

        assertThatThrownBy(() -> read(3, offsets(15L, 40L)))
                .isInstanceOf(SourceRecordGoneException.class)
                .hasMessageContaining("samples-3@40 is beyond the end");
    }

    @Test
    void shouldReportANamedOffsetTheLogDoesNotHoldAsGone() {
        partitionHolds(0, 16, 10, 13);

        assertThatThrownBy(() -> read(3, offsets(10L, 12L, 13L)))
                .isInstanceOf(SourceRecordGoneException.class)
                .hasMessageContaining("no record at samples-3@12");
    }

    @Test
    void shouldCountABrokerThatSendsNothingAsAnOutage() {
        partitionHolds(0, 16);
        consumer.schedulePollTask(() -> nanos.addAndGet(Duration.ofSeconds(6).toNanos()));

        assertThatThrownBy(() -> read(3, offsets(10L)))
                .isInstanceOf(SourceUnavailableException.class)
                .hasMessageContaining("took longer than");
        assertThat(consumer.assignment()).isEmpty();
    }

    private Map<Long, Sample> read(int partition, SortedSet<Long> offsets) {
        return read(source, offsets);
    }

    private static Map<Long, Sample> read(KafkaSampleSource from, SortedSet<Long> offsets) {
        Map<Long, Sample> read = new LinkedHashMap<>();
        from.read(P3.partition(), offsets, sourced -> read.put(sourced.offset(), sourced.sample()));
        return read;
    }
}
