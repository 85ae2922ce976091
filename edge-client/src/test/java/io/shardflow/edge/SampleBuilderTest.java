package io.shardflow.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SampleBuilderTest {

    @Test
    void shouldPackTensorsLittleEndianInCOrder() {
        Sample sample = SampleBuilder.forDataset("d", "v1").id("s1").device("dev").producedAt(Instant.ofEpochMilli(5))
                .float32("image", new float[] {1.5f, -2f, 3f, 4f, 5f, 6f}, 2, 3)
                .int64("label", new long[] {9})
                .build();

        var image = sample.getTensors().get(0);
        assertThat(image.getDtype()).isEqualTo(DType.FLOAT32);
        assertThat(image.getShape()).containsExactly(2, 3);
        ByteBuffer data = image.getData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        assertThat(data.remaining()).isEqualTo(24);
        assertThat(data.getFloat(0)).isEqualTo(1.5f);
        assertThat(data.getFloat(4)).isEqualTo(-2f);
        assertThat(data.get(0)).as("first byte is the low byte of 1.5f").isEqualTo((byte) 0);
        var label = sample.getTensors().get(1);
        assertThat(label.getShape()).isEmpty();
        assertThat(label.getData().duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(0)).isEqualTo(9L);
    }

    @Test
    void shouldRefuseValuesThatDoNotFillTheShape() {
        assertThatThrownBy(() -> SampleBuilder.forDataset("d", "v1").float32("image", new float[5], 2, 3))
                .hasMessageContaining("'image' has 5 values but shape [2, 3] needs 6");
    }

    @Test
    void shouldMakeTheSameSyntheticSampleForTheSameSeedAndNumber() {
        SyntheticSamples a = new SyntheticSamples("d", "v1", "cam", 3, 4, 10, 42);
        SyntheticSamples b = new SyntheticSamples("d", "v1", "cam", 3, 4, 10, 42);
        assertThat(a.sample(7, Instant.EPOCH)).isEqualTo(b.sample(7, Instant.EPOCH));
        assertThat(a.image(7)).isNotEqualTo(a.image(8));
        assertThat(List.of(a.label(1), a.label(2))).allMatch(l -> l >= 0 && l < 10);
    }
}
