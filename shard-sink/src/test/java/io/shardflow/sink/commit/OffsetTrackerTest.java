package io.shardflow.sink.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {

    private static final TopicPartition P0 = new TopicPartition("shard-assignments", 0);
    private static final TopicPartition P1 = new TopicPartition("shard-assignments", 1);
    private static final ShardId A = new ShardId("cams", "v1", 0, 0);
    private static final ShardId B = new ShardId("cams", "v1", 1, 0);
    private static final ShardId C = new ShardId("cams", "v1", 2, 0);

    private final OffsetTracker tracker = new OffsetTracker();

    @Test
    void shouldCommitNothingBeforeAnyRecordIsConsumed() {
        assertThat(tracker.committable()).isEmpty();
    }

    @Test
    void shouldMoveToTheNextOffsetWhenNoShardIsOpen() {
        consume(P0, 0, 1, 2);

        assertThat(tracker.committable()).containsExactlyInAnyOrderEntriesOf(Map.of(P0, new OffsetAndMetadata(3)));
    }

    @Test
    void shouldHoldTheOffsetAtTheFirstRecordOfTheOldestUnfinishedShard() {
        open(P0, A, 3);
        open(P0, B, 5);
        consume(P0, 6, 7, 8);

        assertThat(offsetOf(P0)).isEqualTo(3);

        tracker.finished(P0, B);
        assertThat(offsetOf(P0)).as("A, opened at 3, is still unfinished").isEqualTo(3);

        tracker.finished(P0, A);
        assertThat(offsetOf(P0)).isEqualTo(9);
    }

    @Test
    void shouldMoveOnlyToTheNextUnfinishedShardWhenTheOldestFinishes() {
        open(P0, A, 0);
        open(P0, B, 4);
        consume(P0, 5, 6);

        tracker.finished(P0, A);

        assertThat(offsetOf(P0)).isEqualTo(4);
    }

    @Test
    void shouldKeepTheFirstOffsetWhenAShardIsOpenedAgain() {
        open(P0, A, 2);
        tracker.opened(P0, A, 7);
        consume(P0, 7, 8);

        assertThat(offsetOf(P0)).isEqualTo(2);
    }

    @Test
    void shouldTrackPartitionsIndependently() {
        open(P0, A, 10);
        consume(P0, 11, 12);
        consume(P1, 40, 41);

        assertThat(tracker.committable())
                .containsExactlyInAnyOrderEntriesOf(Map.of(P0, new OffsetAndMetadata(10), P1, new OffsetAndMetadata(42)));

        tracker.finished(P1, A); // the wrong partition: must not release P0
        assertThat(offsetOf(P0)).isEqualTo(10);
    }

    @Test
    void shouldReturnOnlyOffsetsThatAdvancedSinceTheyWereMarkedCommitted() {
        open(P0, A, 5);
        consume(P0, 6);
        consume(P1, 0, 1);
        tracker.markCommitted(tracker.committable());

        assertThat(tracker.committable()).as("nothing moved").isEmpty();

        consume(P0, 7);
        assertThat(tracker.committable()).as("P0 is still held at 5, P1 did not move").isEmpty();

        consume(P1, 2);
        assertThat(tracker.committable()).containsExactlyInAnyOrderEntriesOf(Map.of(P1, new OffsetAndMetadata(3)));

        tracker.finished(P0, A);
        assertThat(tracker.committable())
                .containsExactlyInAnyOrderEntriesOf(Map.of(P0, new OffsetAndMetadata(8), P1, new OffsetAndMetadata(3)));
    }

    @Test
    void shouldNeverReturnAnOffsetBelowOneAlreadyCommitted() {
        consume(P0, 0, 1, 2);
        tracker.markCommitted(Map.of(P0, new OffsetAndMetadata(3)));
        tracker.markCommitted(Map.of(P0, new OffsetAndMetadata(1)));

        assertThat(tracker.committable()).isEmpty();
    }

    @Test
    void shouldDropEverythingAboutAForgottenPartition() {
        open(P0, A, 0);
        consume(P0, 1, 2);
        tracker.finished(P0, A);
        open(P0, B, 3);
        consume(P1, 0);
        tracker.markCommitted(tracker.committable()); // P0 -> 3, P1 -> 1

        tracker.forget(P0);

        assertThat(tracker.committable()).as("P0 is gone, P1 did not move").isEmpty();
        assertThat(tracker.positionsAfter(Set.of())).containsOnlyKeys(P1);

        // Assigned again later, from the group's committed offset 3: no stale hold by B, no stale "already committed".
        open(P0, C, 3);
        consume(P0, 4);
        assertThat(offsetOf(P0)).isEqualTo(3);
        tracker.finished(P0, C);
        assertThat(offsetOf(P0)).isEqualTo(5);
    }

    @Test
    void shouldReportPositionsOfEveryPartitionAsTheyWillBeAfterTheFinishingShards() {
        open(P0, A, 2);
        open(P0, B, 4);
        consume(P0, 5, 6);
        consume(P1, 0, 1);
        tracker.markCommitted(tracker.committable());

        assertThat(tracker.positionsAfter(List.of(A))).containsExactlyInAnyOrderEntriesOf(Map.of(P0, 4L, P1, 2L));
        assertThat(tracker.positionsAfter(List.of(A, B))).containsExactlyInAnyOrderEntriesOf(Map.of(P0, 7L, P1, 2L));
        assertThat(tracker.positionsAfter(List.of())).containsExactlyInAnyOrderEntriesOf(Map.of(P0, 2L, P1, 2L));
        assertThat(offsetOf(P0)).as("asking must not finish anything").isNull();
    }

    private void open(TopicPartition partition, ShardId shard, long offset) {
        tracker.opened(partition, shard, offset);
        tracker.consumed(partition, offset);
    }

    private void consume(TopicPartition partition, long... offsets) {
        for (long offset : offsets) {
            tracker.consumed(partition, offset);
        }
    }

    private Long offsetOf(TopicPartition partition) {
        OffsetAndMetadata offset = tracker.committable().get(partition);
        return offset == null ? null : offset.offset();
    }
}
