package io.shardflow.console.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.SealReason;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Where the seal marker is looked for: a commit entry names every partition the sink owned, most of
 * which hold other lanes' markers or nothing consumed yet. Kafka's own MockConsumer stands in for the
 * broker; ConsoleServerTest reads the reasons from a real one.
 */
class SealReasonsTest {

    private static final String TOPIC = "shard-assignments";
    private static final String SHARD = "cams/v1/lane-00001/shard-000000000000";

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>(OffsetResetStrategy.EARLIEST);
    private final SealReasons reasons = new SealReasons(consumer, null, TOPIC);

    @Test
    void shouldFindTheMarkerWhenAnotherPartitionOfTheEntryHasNothingConsumedYet() {
        Map<TopicPartition, Long> beginnings = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            beginnings.put(new TopicPartition(TOPIC, p), 0L);
        }
        consumer.updateBeginningOffsets(beginnings);
        TopicPartition marked = new TopicPartition(TOPIC, 1);
        consumer.assign(List.of(marked));
        consumer.addRecord(record(marked, 0, SHARD, new SampleAssigned(0, 10L)));
        consumer.addRecord(record(marked, 1, "cams/v1/lane-00002/shard-000000000000", new ShardSealed(1, 5L, SealReason.COUNT, "f")));
        consumer.addRecord(record(marked, 2, SHARD, new ShardSealed(1, 5L, SealReason.AGE, "f")));
        Map<String, Long> positions = new LinkedHashMap<>();
        positions.put(TOPIC + "-0", 0L);   // iterated first: nothing of this partition consumed yet
        positions.put(TOPIC + "-1", 3L);
        positions.put(TOPIC + "-2", 0L);

        assertThat(reasons.reasonBefore(positions, SHARD)).isEqualTo("AGE");
    }

    @Test
    void shouldSayTheMarkerIsGoneOnlyWhenRetentionRemovedWhatCameBeforeThePosition() {
        TopicPartition truncated = new TopicPartition(TOPIC, 0);
        consumer.updateBeginningOffsets(Map.of(truncated, 50L, new TopicPartition(TOPIC, 1), 0L));

        assertThat(reasons.reasonBefore(Map.of(TOPIC + "-0", 40L), SHARD))
                .isEqualTo("unknown (the seal marker is no longer on " + TOPIC + ")");
        assertThat(reasons.reasonBefore(Map.of(TOPIC + "-1", 0L), SHARD))
                .isEqualTo("unknown (no seal marker found on " + TOPIC + " before the commit's offsets)");
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, String shard, Object body) {
        ShardEvent event = new ShardEvent("cams", "v1", 1, 0L, body);
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, shard.getBytes(StandardCharsets.UTF_8), ShardEventCodec.encode(event));
    }
}
