package io.shardflow.dataset.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DTypeTest {

    @Test
    void shouldParseNumpyAndConstantNamesInAnyCase() {
        assertThat(DType.parse("float32")).isEqualTo(DType.FLOAT32);
        assertThat(DType.parse("FLOAT32")).isEqualTo(DType.FLOAT32);
        assertThat(DType.parse(" Uint8 ")).isEqualTo(DType.UINT8);
        for (DType type : DType.values()) {
            assertThat(DType.parse(type.numpyName())).isEqualTo(type);
            assertThat(DType.parse(type.name())).isEqualTo(type);
        }
    }

    @Test
    void shouldListTheChoicesWhenTheNameIsUnknown() {
        assertThatThrownBy(() -> DType.parse("float8"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'float8'")
                .hasMessageContaining("bool, uint8, int8, int16, int32, int64, float32, float64, float16, bfloat16, uint16,"
                        + " uint32, uint64, string, bytes");
    }

    @Test
    void shouldKnowItemSizesAndNumpyNames() {
        assertThat(DType.BOOL.itemSize()).isEqualTo(1);
        assertThat(DType.INT16.itemSize()).isEqualTo(2);
        assertThat(DType.FLOAT32.itemSize()).isEqualTo(4);
        assertThat(DType.INT64.itemSize()).isEqualTo(8);
        assertThat(DType.FLOAT64.numpyName()).isEqualTo("float64");
        assertThat(DType.BOOL.numpyName()).isEqualTo("bool");
    }
}
