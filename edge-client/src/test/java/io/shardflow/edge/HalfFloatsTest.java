package io.shardflow.edge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HalfFloatsTest {

    @Test
    void shouldRoundToNearestEvenAsNumpyDoes() {
        // numpy: np.array([1, -2, 65504, 65520, 1e-8, 2**-24, 0.1, 1+2**-11, 1+3*2**-11], np.float16).view(np.uint16)
        float[] values = {1f, -2f, 65504f, 65520f, 1e-8f, 0x1p-24f, 0.1f, 1 + 0x1p-11f, 1 + 3 * 0x1p-11f};
        int[] expected = {0x3C00, 0xC000, 0x7BFF, 0x7C00, 0x0000, 0x0001, 0x2E66, 0x3C00, 0x3C02};
        for (int i = 0; i < values.length; i++) {
            assertThat(HalfFloats.toFloat16(values[i]) & 0xFFFF).as("float16(%s)", values[i]).isEqualTo(expected[i]);
        }
        assertThat(HalfFloats.toFloat16(Float.NaN) & 0x7C00).isEqualTo(0x7C00);
    }

    @Test
    void shouldTakeTheRoundedTopHalfForBfloat16() {
        assertThat(HalfFloats.toBfloat16(1f) & 0xFFFF).isEqualTo(0x3F80);
        assertThat(HalfFloats.toBfloat16(Float.intBitsToFloat(0x3F808000)) & 0xFFFF).isEqualTo(0x3F80); // tie to even
        assertThat(HalfFloats.toBfloat16(Float.intBitsToFloat(0x3F818000)) & 0xFFFF).isEqualTo(0x3F82);
        assertThat(HalfFloats.toBfloat16(-0.0f) & 0xFFFF).isEqualTo(0x8000);
    }
}
