package io.shardflow.schemas.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShardEventCodecTest {

    private static Sample sample() {
        return Sample.newBuilder()
                .setDataset("cats").setVersion("v1").setSampleId("s-1").setDeviceId("d-1")
                .setProducedAt(java.time.Instant.ofEpochMilli(1_700_000_000_123L))
                .setTensors(List.of(new Tensor("label", DType.INT64, List.of(), ByteBuffer.wrap(new byte[] {7, 0, 0, 0, 0, 0, 0, 0}))))
                .setAttributes(Map.of("camera", "front"))
                .build();
    }

    @Test
    void shouldRoundTripSampleAssigned() {
        ShardEvent event = new ShardEvent("cats", "v1", 3, 42L, new SampleAssigned(5, sample()));
        assertThat(ShardEventCodec.decode(ShardEventCodec.encode(event))).isEqualTo(event);
    }

    @Test
    void shouldRoundTripShardSealed() {
        ShardEvent event = new ShardEvent("cats", "v1", 0, 0L, new ShardSealed(100, 12_345L, SealReason.AGE, "abc"));
        assertThat(ShardEventCodec.decode(ShardEventCodec.encode(event))).isEqualTo(event);
    }

    @Test
    void shouldRefuseUnknownFormatVersion() {
        byte[] bytes = ShardEventCodec.encode(new ShardEvent("c", "v", 0, 0L, new ShardSealed(1, 1L, SealReason.COUNT, "f")));
        bytes[0] = 9;
        assertThatThrownBy(() -> ShardEventCodec.decode(bytes)).hasMessageContaining("format version 9");
    }
}
