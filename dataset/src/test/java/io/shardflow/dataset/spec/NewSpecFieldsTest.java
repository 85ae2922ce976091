package io.shardflow.dataset.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class NewSpecFieldsTest {

    private final SpecCodec codec = new SpecCodec();

    @Test
    void shouldRoundTripFreeDimensionsEncodingsAndCompressionThroughSpecJson() {
        DatasetSpec spec = new DatasetSpec("det", "v1", List.of(TensorSpec.parse("frame:bytes:image/jpeg"),
                TensorSpec.parse("boxes:float32:?<=64x4"), TensorSpec.parse("tokens:int32:?"), TensorSpec.parse("caption:string"),
                TensorSpec.parse("h:float16:2")), null, "a", "d", 0, false, Specs.CREATED_AT, Compression.parse("gzip:6"));

        byte[] json = codec.toJson(spec);
        String text = new String(json, StandardCharsets.UTF_8);

        assertThat(codec.fromJson(json)).isEqualTo(spec);
        assertThat(text).contains("\"compression\" : \"gzip:6\"").contains("\"encoding\" : \"image/jpeg\"")
                .contains("\"maxShape\" : [ 64, null ]").contains("\"shape\" : [ null, 4 ]");
        assertThat(spec.canonicalLayout()).isEqualTo(
                "frame:bytes:image/jpeg\nboxes:float32:?<=64x4\ntokens:int32:?\ncaption:string:\nh:float16:2\n");
    }

    @Test
    void shouldKeepTheBytesAndFingerprintOfAnUncompressedFixedSpec() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        String text = new String(codec.toJson(spec), StandardCharsets.UTF_8);

        assertThat(text).doesNotContain("compression").doesNotContain("maxShape").doesNotContain("encoding");
        assertThat(spec.fingerprint()).startsWith("7cbfe05a");
        assertThat(spec.withCompression(Compression.parse("lzf")).fingerprint()).isEqualTo(spec.fingerprint());
    }

    @Test
    void shouldNameABadCompression() {
        assertThat(Compression.parse("gzip").level()).isEqualTo(4);
        assertThat(Compression.parse("LZF").toString()).isEqualTo("lzf");
        assertThatThrownBy(() -> Compression.parse("zstd")).hasMessageContaining("unknown compression 'zstd'");
        assertThatThrownBy(() -> Compression.parse("gzip:10")).hasMessageContaining("1-9");
    }
}
