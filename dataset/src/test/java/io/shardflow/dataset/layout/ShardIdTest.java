package io.shardflow.dataset.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShardIdTest {

    @Test
    void shouldPadLaneAndSequence() {
        assertThat(new ShardId("cifar", "v1", 3, 42)).hasToString("cifar/v1/lane-00003/shard-000000000042");
        assertThat(new ShardId("cifar", "v1", ShardId.MAX_LANE, ShardId.MAX_SEQUENCE))
                .hasToString("cifar/v1/lane-99999/shard-999999999999");
    }

    @Test
    void shouldParseWhatItPrints() {
        ShardId id = new ShardId("my.data_set-1", "2026.01", 17, 123456789);

        assertThat(ShardId.parse(id.toString())).isEqualTo(id);
    }

    @Test
    void shouldRefuseMalformedText() {
        assertThatThrownBy(() -> ShardId.parse("cifar/v1/lane-3/shard-42")).hasMessageContaining("'cifar/v1/lane-3/shard-42'");
        assertThatThrownBy(() -> ShardId.parse("cifar/v1/lane-00003/shard-000000000042/x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShardId.parse("../v1/lane-00003/shard-000000000042")).hasMessageContaining("dataset name '..'");
        assertThatThrownBy(() -> ShardId.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRefuseOutOfRangeCoordinates() {
        assertThatThrownBy(() -> new ShardId("d", "v", -1, 0)).hasMessageContaining("lane -1");
        assertThatThrownBy(() -> new ShardId("d", "v", 100_000, 0)).hasMessageContaining("lane 100000");
        assertThatThrownBy(() -> new ShardId("d", "v", 0, 1_000_000_000_000L)).hasMessageContaining("sequence");
    }
}
