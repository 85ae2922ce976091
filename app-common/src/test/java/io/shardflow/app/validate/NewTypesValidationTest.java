package io.shardflow.app.validate;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.app.spec.SpecSource;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class NewTypesValidationTest {

    private static final DatasetSpec SPEC = new DatasetSpec("det", "v1", List.of(TensorSpec.parse("boxes:float32:?<=2x4"),
            TensorSpec.parse("caption:string"), TensorSpec.parse("frame:bytes:image/png"), TensorSpec.parse("h:float16:2")),
            null, "t", "d", 0, false, Instant.EPOCH);

    private final SampleValidator validator = new SampleValidator(new SpecSource() {
        @Override
        public Optional<DatasetSpec> find(String dataset, String version) {
            return Optional.of(SPEC);
        }

        @Override
        public boolean datasetExists(String dataset) {
            return true;
        }
    }, SampleLimits.withMaxSampleBytes(1 << 20));

    @Test
    void shouldAcceptEachRowWithItsOwnFreeDimension() throws Exception {
        assertThat(validator.validate(sample(boxes(0), caption("ü"), frame(png()), half())).isRejected()).isFalse();
        assertThat(validator.validate(sample(boxes(2), caption(""), frame(png()), half())).isRejected()).isFalse();
    }

    @Test
    void shouldDeadLetterEachBadRowWithItsReason() throws Exception {
        byte[] png = png();
        assertThat(reason(sample(boxes(3), caption("x"), frame(png), half()))).isEqualTo(RejectReason.DIMENSION_OVER_MAXIMUM);
        assertThat(reason(sample(new Tensor("boxes", DType.FLOAT32, List.of(1, 5), ByteBuffer.allocate(20)), caption("x"),
                frame(png), half()))).isEqualTo(RejectReason.SHAPE_MISMATCH);
        assertThat(reason(sample(new Tensor("boxes", DType.FLOAT32, List.of(1, 4), ByteBuffer.allocate(12)), caption("x"),
                frame(png), half()))).isEqualTo(RejectReason.BYTE_LENGTH_MISMATCH);
        assertThat(reason(sample(boxes(1), new Tensor("caption", DType.STRING, List.of(), ByteBuffer.wrap(new byte[] {(byte) 0xC3})),
                frame(png), half()))).isEqualTo(RejectReason.INVALID_UTF8);
        assertThat(reason(sample(boxes(1), caption("x"), frame(Arrays.copyOf(png, png.length - 5)), half())))
                .isEqualTo(RejectReason.CORRUPT_IMAGE);
        byte[] flipped = png.clone();
        flipped[40] ^= 0x10;
        assertThat(reason(sample(boxes(1), caption("x"), frame(flipped), half()))).isEqualTo(RejectReason.CORRUPT_IMAGE);
        assertThat(reason(sample(boxes(1), caption("x"), frame(png),
                new Tensor("h", DType.FLOAT16, List.of(2), ByteBuffer.wrap(new byte[] {0, 0x7C, 0, 0})))))
                .isEqualTo(RejectReason.NON_FINITE_VALUE);
        assertThat(reason(sample(boxes(1), caption("x"), frame(png),
                new Tensor("h", DType.UNKNOWN, List.of(2), ByteBuffer.allocate(4))))).isEqualTo(RejectReason.DTYPE_MISMATCH);
    }

    @Test
    void shouldCheckTheStructureOfAJpeg() throws Exception {
        BufferedImage image = new BufferedImage(16, 8, BufferedImage.TYPE_INT_RGB);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "jpeg", out);
        byte[] jpeg = out.toByteArray();

        assertThat(ImageCheck.problem("image/jpeg", ByteBuffer.wrap(jpeg))).isEmpty();
        assertThat(ImageCheck.problem("image/jpeg", ByteBuffer.wrap(Arrays.copyOf(jpeg, jpeg.length / 2)))).isPresent();
        assertThat(ImageCheck.problem("image/jpeg", ByteBuffer.wrap("not a jpeg at all".getBytes(StandardCharsets.UTF_8))))
                .hasValueSatisfying(p -> assertThat(p).contains("start-of-image"));
    }

    private RejectReason reason(Sample sample) {
        SampleValidator.Validated validated = validator.validate(sample);
        assertThat(validated.isRejected()).isTrue();
        return validated.rejection().reason();
    }

    private static Sample sample(Tensor... tensors) {
        return Sample.newBuilder().setDataset("det").setVersion("v1").setSampleId("s").setDeviceId("d")
                .setProducedAt(Instant.EPOCH).setTensors(List.of(tensors)).setAttributes(Map.of()).build();
    }

    private static Tensor boxes(int n) {
        return new Tensor("boxes", DType.FLOAT32, List.of(n, 4), ByteBuffer.allocate(n * 16));
    }

    private static Tensor caption(String text) {
        return new Tensor("caption", DType.STRING, List.of(), ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static Tensor frame(byte[] encoded) {
        return new Tensor("frame", DType.BYTES, List.of(), ByteBuffer.wrap(encoded));
    }

    private static Tensor half() {
        return new Tensor("h", DType.FLOAT16, List.of(2), ByteBuffer.wrap(new byte[] {0, 0x3C, 0, (byte) 0xC0}));
    }

    private static byte[] png() throws Exception {
        BufferedImage image = new BufferedImage(6, 4, BufferedImage.TYPE_INT_RGB);
        image.setRGB(1, 1, 0x123456);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }
}
