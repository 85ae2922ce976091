package io.shardflow.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.sink.flow.Backpressure;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionPauserTest {

    private static final TopicPartition P0 = new TopicPartition("shard-assignments", 0);
    private static final TopicPartition P1 = new TopicPartition("shard-assignments", 1);
    private static final long SPOOL_LIMIT = 100;

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final Backpressure backpressure = new Backpressure(Duration.ofSeconds(1), Duration.ofSeconds(8), SPOOL_LIMIT,
            () -> 0L, new SplittableRandom(1));
    private final SinkMetrics metrics = new SinkMetrics(new SimpleMeterRegistry());
    private final PartitionPauser pauser = new PartitionPauser(consumer, backpressure, metrics);

    PartitionPauserTest() {
        consumer.assign(List.of(P0, P1));
    }

    @Test
    void shouldPauseNothingInNormalRunning() {
        pauser.apply(Set.of(), 0);

        assertThat(consumer.paused()).isEmpty();
        assertThat(metrics.pausedPartitions).hasValue(0);
    }

    @Test
    void shouldPauseEveryPartitionDuringAnOutageAndResumeAfterIt() {
        backpressure.failed();
        pauser.apply(Set.of(P0), 0);
        assertThat(consumer.paused()).containsExactlyInAnyOrder(P0, P1);
        assertThat(metrics.pausedPartitions).hasValue(2);

        backpressure.recovered();
        pauser.apply(Set.of(P0), 0);
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    void shouldKeepPartitionsWithOpenShardsFlowingOverTheSpoolBudget() {
        pauser.apply(Set.of(P0), SPOOL_LIMIT + 1);

        assertThat(consumer.paused()).containsExactly(P1);
        assertThat(metrics.pausedPartitions).hasValue(1);
    }

    @Test
    void shouldDoNothingWithoutAssignedPartitions() {
        MockConsumer<byte[], byte[]> unassigned = new MockConsumer<>("earliest");
        backpressure.failed();

        new PartitionPauser(unassigned, backpressure, metrics).apply(Set.of(), 0);

        assertThat(unassigned.paused()).isEmpty();
    }
}
