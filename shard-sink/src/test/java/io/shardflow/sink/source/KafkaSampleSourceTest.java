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
import java.util.Map;
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

    /** The partition holds sample(n) at each offset n of {@code offsets}, its log spanning [start, end). */
    private void partitionHolds(long start, long end, long... offsets) {
        consumer.updateBeginningOffsets(Map.of(P3, start));
        consumer.updateEndOffsets(Map.of(P3, end));
        consumer.assign(List.of(P3));
        for (long offset : offsets) {
            try {
                byte[] value = ShardEvents.sample((int) offset).toByteBuffer().array();
                consumer.addRecord(new ConsumerRecord<>(P3.topic(), P3.partition(), offset, new byte[0], value));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static TreeSet<Long> offsets(Long... offsets) {
        return new TreeSet<>(List.of(offsets));
    }

    @Test
    void shouldReturnExactlyTheNamedRecordsSkippingOthersAndGaps() {
        // 11 and 14 belong to other lanes or were dead-lettered; 12 is a gap (a transaction marker).
        partitionHolds(0, 16, 10, 11, 13, 14, 15);

        Map<Long, Sample> read = source.read(3, offsets(10L, 13L, 15L));

        assertThat(read).containsOnlyKeys(10L, 13L, 15L);
        assertThat(read.get(13L)).isEqualTo(ShardEvents.sample(13));
        assertThat(consumer.assignment()).as("the reader gives its partition back").isEmpty();
    }

    @Test
    void shouldReportARecordRetentionDeletedAsGone() {
        partitionHolds(20, 30, 20, 21);

        assertThatThrownBy(() -> source.read(3, offsets(10L, 21L)))
                .isInstanceOf(SourceRecordGoneException.class)
                .hasMessageContaining("samples-3@10")
                .hasMessageContaining("now starts at offset 20")
                .hasMessageContaining("retention");
    }

    @Test
    void shouldReportAnOffsetBeyondTheEndOfTheTopicAsGone() {
        partitionHolds(0, 16, 15);

        assertThatThrownBy(() -> source.read(3, offsets(15L, 40L)))
                .isInstanceOf(SourceRecordGoneException.class)
                .hasMessageContaining("samples-3@40 is beyond the end");
    }

    @Test
    void shouldReportANamedOffsetTheLogDoesNotHoldAsGone() {
        partitionHolds(0, 16, 10, 13);

        assertThatThrownBy(() -> source.read(3, offsets(10L, 12L, 13L)))
                .isInstanceOf(SourceRecordGoneException.class)
                .hasMessageContaining("no record at samples-3@12");
    }

    @Test
    void shouldCountABrokerThatSendsNothingAsAnOutage() {
        partitionHolds(0, 16);
        consumer.schedulePollTask(() -> nanos.addAndGet(Duration.ofSeconds(6).toNanos()));

        assertThatThrownBy(() -> source.read(3, offsets(10L)))
                .isInstanceOf(SourceUnavailableException.class)
                .hasMessageContaining("took longer than");
        assertThat(consumer.assignment()).isEmpty();
    }
}
