package io.shardflow.dataset.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TensorSpecTest {

    @Test
    void shouldParseShapedAndScalarTensors() {
        TensorSpec image = TensorSpec.parse("image:float32:3x32x32");
        TensorSpec label = TensorSpec.parse("label:INT64");

        assertThat(image).isEqualTo(new TensorSpec("image", DType.FLOAT32, List.of(3, 32, 32)));
        assertThat(image.elementCount()).isEqualTo(3072);
        assertThat(image.byteLength()).isEqualTo(12288);
        assertThat(label.shape()).isEmpty();
        assertThat(label.isScalar()).isTrue();
        assertThat(label.elementCount()).isEqualTo(1);
        assertThat(label.byteLength()).isEqualTo(8);
    }

    @Test
    void shouldPrintWhatItParses() {
        for (String text : List.of("image:float32:3x32x32", "label:int64", "mask:bool:7")) {
            assertThat(TensorSpec.parse(text).toSpecString()).isEqualTo(text);
        }
    }

    @Test
    void shouldNameTheBadPart() {
        assertThatThrownBy(() -> TensorSpec.parse("image")).hasMessageContaining("name:dtype");
        assertThatThrownBy(() -> TensorSpec.parse("1image:float32:3")).hasMessageContaining("bad name '1image'");
        assertThatThrownBy(() -> TensorSpec.parse("image:float16:3")).hasMessageContaining("unknown dtype 'float16'");
        assertThatThrownBy(() -> TensorSpec.parse("image:float32:3xAx4")).hasMessageContaining("bad dimension 'A'");
        assertThatThrownBy(() -> TensorSpec.parse("image:float32:3x0")).hasMessageContaining("bad dimension '0'");
        assertThatThrownBy(() -> TensorSpec.parse("image:float32:3x")).hasMessageContaining("bad dimension ''");
        assertThatThrownBy(() -> TensorSpec.parse("a:b:c:d")).hasMessageContaining("'a:b:c:d'");
        assertThatThrownBy(() -> TensorSpec.parse("")).hasMessageContaining("empty");
    }

    @Test
    void shouldRefuseInvalidNamesAndDimensions() {
        assertThatThrownBy(() -> new TensorSpec("has-dash", DType.INT8, List.of()))
                .hasMessageContaining("tensor name 'has-dash'");
        assertThatThrownBy(() -> new TensorSpec("x", DType.INT8, List.of(2, -1)))
                .hasMessageContaining("dimension -1");
        assertThatThrownBy(() -> new TensorSpec("x", DType.INT8, List.of(1, 1, 1, 1, 1, 1, 1, 1, 1)))
                .hasMessageContaining("rank 9");
        assertThatThrownBy(() -> new TensorSpec("x", DType.FLOAT64, List.of(65536, 65536)))
                .hasMessageContaining("larger than 2 GiB");
    }
}
