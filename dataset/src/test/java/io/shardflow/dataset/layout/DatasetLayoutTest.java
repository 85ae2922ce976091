package io.shardflow.dataset.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DatasetLayoutTest {

    @Test
    void shouldDeriveKeysFromCoordinatesOnly() {
        assertThat(DatasetLayout.datasetsPrefix()).isEqualTo("datasets/");
        assertThat(DatasetLayout.versionsPrefix("cifar")).isEqualTo("datasets/cifar/");
        assertThat(DatasetLayout.specKey("cifar", "v1")).isEqualTo("datasets/cifar/v1/spec.json");
        assertThat(DatasetLayout.shardKey(new ShardId("cifar", "v1", 3, 42)))
                .isEqualTo("datasets/cifar/v1/shards/lane-00003/shard-000000000042.h5");
        assertThat(DatasetLayout.commitPrefix("cifar", "v1")).isEqualTo("datasets/cifar/v1/log/");
        assertThat(DatasetLayout.commitKey("cifar", "v1", 42)).isEqualTo("datasets/cifar/v1/log/00000000000000000042.json");
    }

    @Test
    void shouldSortCommitKeysInSnapshotOrder() {
        assertThat(DatasetLayout.commitKey("d", "v", 9)).isLessThan(DatasetLayout.commitKey("d", "v", 10));
        assertThat(DatasetLayout.commitKey("d", "v", 99_999)).isLessThan(DatasetLayout.commitKey("d", "v", 100_000));
    }

    @Test
    void shouldReadTheSnapshotIdBackFromACommitKey() {
        assertThat(DatasetLayout.snapshotIdOf("d", "v", DatasetLayout.commitKey("d", "v", 7))).hasValue(7);
        assertThat(DatasetLayout.snapshotIdOf("d", "v", DatasetLayout.commitKey("d", "v", Long.MAX_VALUE))).hasValue(Long.MAX_VALUE);
        assertThat(DatasetLayout.snapshotIdOf("d", "v", "datasets/d/v/log/7.json")).isEmpty();
        assertThat(DatasetLayout.snapshotIdOf("d", "v", "datasets/d/v/log/99999999999999999999.json")).isEmpty();
        assertThat(DatasetLayout.snapshotIdOf("d", "v", DatasetLayout.commitKey("d", "w", 7))).isEmpty();
    }

    @Test
    void shouldRefuseNamesThatWouldEscapeTheirPrefix() {
        assertThatThrownBy(() -> DatasetLayout.specKey("..", "v1")).hasMessageContaining("dataset name '..'");
        assertThatThrownBy(() -> DatasetLayout.specKey("d", "a/b")).hasMessageContaining("dataset version 'a/b'");
        assertThatThrownBy(() -> DatasetLayout.commitKey("d", "v", 0)).hasMessageContaining("start at 1");
    }

    @Test
    void shouldNameCheckpointsNewestFirst() {
        assertThat(DatasetLayout.checkpointPrefix("cifar", "v1")).isEqualTo("datasets/cifar/v1/checkpoints/");
        assertThat(DatasetLayout.checkpointKey("cifar", "v1", 40))
                .isEqualTo("datasets/cifar/v1/checkpoints/99999999999999999959-00000000000000000040.json.gz");
        assertThat(DatasetLayout.checkpointKey("d", "v", 100_000)).isLessThan(DatasetLayout.checkpointKey("d", "v", 99_990));
        assertThat(DatasetLayout.checkpointKey("d", "v", 20)).isLessThan(DatasetLayout.checkpointKey("d", "v", 10));
        assertThat(DatasetLayout.checkpointIdOf("d", "v", DatasetLayout.checkpointKey("d", "v", 123))).hasValue(123);
        assertThat(DatasetLayout.checkpointIdOf("d", "v", "datasets/d/v/checkpoints/99999999999999999959-00000000000000000041.json.gz"))
                .as("the two ids disagree").isEmpty();
        assertThat(DatasetLayout.checkpointIdOf("d", "v", DatasetLayout.commitKey("d", "v", 7))).isEmpty();
    }

    @Test
    void shouldStartACheckpointSearchJustBeforeTheNewestCheckpointAtOrBeforeTheTarget() {
        String start = DatasetLayout.checkpointSearchStart("d", "v", 25);

        assertThat(DatasetLayout.checkpointKey("d", "v", 30)).isLessThan(start);
        assertThat(DatasetLayout.checkpointKey("d", "v", 26)).isLessThan(start);
        assertThat(DatasetLayout.checkpointKey("d", "v", 25)).isGreaterThan(start);
        assertThat(DatasetLayout.checkpointKey("d", "v", 20)).isGreaterThan(start);
    }
}
