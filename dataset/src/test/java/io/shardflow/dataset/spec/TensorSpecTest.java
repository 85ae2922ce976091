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
    void shouldParseNewTypesFreeDimensionsAndEncodings() {
        TensorSpec boxes = TensorSpec.parse("boxes:float32:?<=64x4");
        assertThat(boxes.shape()).containsExactly(TensorSpec.FREE, 4);
        assertThat(boxes.maxDims()).containsExactly(64, 0);
        assertThat(boxes.isVariable()).isTrue();
        assertThat(boxes.checkShape(List.of(3, 4))).isNull();
        assertThat(boxes.checkShape(List.of(65, 4)).overMaximum()).isTrue();
        assertThat(boxes.checkShape(List.of(3, 5)).overMaximum()).isFalse();
        assertThat(boxes.checkShape(List.of(3)).detail()).contains("rank 1");
        assertThat(TensorSpec.parse("frame:bytes:image/jpeg").encoding()).isEqualTo("image/jpeg");
        assertThat(TensorSpec.parse("t:bfloat16:2").byteLength()).isEqualTo(4);
        assertThat(TensorSpec.parse("t:uint64").byteLength()).isEqualTo(8);
        assertThatThrownBy(() -> boxes.byteLength()).hasMessageContaining("no fixed size");
    }

    @Test
    void shouldPrintWhatItParses() {
        for (String text : List.of("image:float32:3x32x32", "label:int64", "mask:bool:7", "boxes:float32:?<=64x4",
                "tokens:int32:?", "grid:uint8:?x?x3", "caption:string", "frame:bytes:image/png", "blob:bytes", "h:float16:2")) {
            assertThat(TensorSpec.parse(text).toSpecString()).isEqualTo(text);
        }
    }

    @Test
    void shouldNameTheBadPart() {
        assertThatThrownBy(() -> TensorSpec.parse("image")).hasMessageContaining("name:dtype");
        assertThatThrownBy(() -> TensorSpec.parse("1image:float32:3")).hasMessageContaining("bad name '1image'");
        assertThatThrownBy(() -> TensorSpec.parse("image:float8:3")).hasMessageContaining("unknown dtype 'float8'");
        assertThatThrownBy(() -> TensorSpec.parse("boxes:float32:?<=0x4")).hasMessageContaining("bad free dimension '?<=0'");
        assertThatThrownBy(() -> TensorSpec.parse("boxes:float32:?<x4")).hasMessageContaining("bad free dimension '?<'");
        assertThatThrownBy(() -> TensorSpec.parse("text:string:3")).hasMessageContaining("takes no shape");
        assertThatThrownBy(() -> TensorSpec.parse("frame:bytes:image/gif")).hasMessageContaining("image/jpeg");
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
        assertThatThrownBy(() -> new TensorSpec("x", DType.INT8, List.of(2, -2)))
                .hasMessageContaining("dimension -2");
        assertThatThrownBy(() -> new TensorSpec("x", DType.INT8, List.of(1, 1, 1, 1, 1, 1, 1, 1, 1)))
                .hasMessageContaining("rank 9");
        assertThatThrownBy(() -> new TensorSpec("x", DType.FLOAT64, List.of(65536, 65536)))
                .hasMessageContaining("larger than 2 GiB");
    }
}
