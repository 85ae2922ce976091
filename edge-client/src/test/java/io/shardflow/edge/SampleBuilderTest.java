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
    void shouldPackTheNewTypesAndEncodeImages() throws Exception {
        java.awt.image.BufferedImage image = new java.awt.image.BufferedImage(8, 6, java.awt.image.BufferedImage.TYPE_INT_RGB);
        Sample sample = SampleBuilder.forDataset("d", "v1").id("s").device("dev").producedAt(Instant.EPOCH)
                .uint16("u16", new int[] {65535, 1}, 2).uint32("u32", new long[] {4_294_967_295L}).uint64("u64", new long[] {-1L})
                .float16("h", new float[] {1f, -2f}, 2).bfloat16("b", new float[] {1f}, 1)
                .string("caption", "ü").bytes("blob", new byte[] {9, 8}).jpeg("frame", image, 0.9f).png("mask", image)
                .float32("boxes", new float[8], 2, 4)
                .build();

        java.util.Map<String, io.shardflow.schemas.Tensor> byName = new java.util.HashMap<>();
        sample.getTensors().forEach(t -> byName.put(t.getName(), t));
        assertThat(bytes(byName.get("u16"))).containsExactly(-1, -1, 1, 0);
        assertThat(bytes(byName.get("u32"))).containsExactly(-1, -1, -1, -1);
        assertThat(bytes(byName.get("h"))).containsExactly(0, 0x3C, 0, 0xC0);
        assertThat(bytes(byName.get("b"))).containsExactly(0x80, 0x3F);
        assertThat(byName.get("caption").getDtype()).isEqualTo(DType.STRING);
        assertThat(bytes(byName.get("caption"))).containsExactly(0xC3, 0xBC);
        assertThat(byName.get("caption").getShape()).isEmpty();
        assertThat(bytes(byName.get("frame"))).startsWith(0xFF, 0xD8);
        assertThat(javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(bytes(byName.get("mask")))).getWidth()).isEqualTo(8);
        assertThat(byName.get("boxes").getShape()).containsExactly(2, 4);
        assertThatThrownBy(() -> SampleBuilder.forDataset("d", "v1").uint16("u", new int[] {70000}, 1))
                .hasMessageContaining("outside uint16");
    }

    private static byte[] bytes(io.shardflow.schemas.Tensor tensor) {
        ByteBuffer data = tensor.getData().duplicate();
        byte[] out = new byte[data.remaining()];
        data.get(out);
        return out;
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
