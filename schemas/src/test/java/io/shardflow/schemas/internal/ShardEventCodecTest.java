package io.shardflow.schemas.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShardEventCodecTest {

    @Test
    void shouldRoundTripSampleAssigned() {
        ShardEvent event = new ShardEvent("cats", "v1", 3, 42L, new SampleAssigned(5, 1_234_567L));
        assertThat(ShardEventCodec.decode(ShardEventCodec.encode(event))).isEqualTo(event);
    }

    @Test
    void shouldKeepAnAssignmentCompact() {
        // A decision names its samples record; it must stay small whatever the sample's size.
        byte[] bytes = ShardEventCodec.encode(new ShardEvent("cats", "v1", 3, 42L, new SampleAssigned(5, 1_234_567L)));
        assertThat(bytes.length).isLessThan(32);
    }

    @Test
    void shouldRefuseTheFormatThatCarriedWholeSamples() {
        byte[] bytes = ShardEventCodec.encode(new ShardEvent("c", "v", 0, 0L, new ShardSealed(1, 1L, SealReason.COUNT, "f")));
        bytes[0] = 1;
        assertThatThrownBy(() -> ShardEventCodec.decode(bytes)).hasMessageContaining("format version 1");
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
