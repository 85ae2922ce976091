package io.shardflow.edge;

/**
 * float32 to the 16-bit formats, rounding to nearest with ties to even, as numpy's
 * {@code astype(float16)} and PyTorch's {@code to(torch.bfloat16)} do.
 */
final class HalfFloats {

    private HalfFloats() {
    }

    /** IEEE 754 binary16 bits of {@code value}: overflow becomes infinity, NaN stays NaN. */
    static short toFloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 16) & 0x8000;
        int exponent = (bits >>> 23) & 0xFF;
        int mantissa = bits & 0x7FFFFF;
        if (exponent == 0xFF) {
            return (short) (sign | 0x7C00 | (mantissa != 0 ? 0x200 : 0));
        }
        int halfExponent = exponent - 127 + 15;
        if (halfExponent >= 0x1F) {
            return (short) (sign | 0x7C00);
        }
        if (halfExponent <= 0) {
            if (halfExponent < -10) {
                return (short) sign; // below half the smallest subnormal: zero
            }
            // Subnormal: shift the mantissa with its implicit bit into place, rounding to even.
            int full = mantissa | 0x800000;
            int shift = 14 - halfExponent;
            int half = full >>> shift;
            int rest = full & ((1 << shift) - 1);
            int midpoint = 1 << (shift - 1);
            if (rest > midpoint || (rest == midpoint && (half & 1) == 1)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = (halfExponent << 10) | (mantissa >>> 13);
        int rest = mantissa & 0x1FFF;
        if (rest > 0x1000 || (rest == 0x1000 && (half & 1) == 1)) {
            half++; // may carry into the exponent, up to infinity: correct
        }
        return (short) (sign | half);
    }

    /** bfloat16 bits of {@code value}: the top 16 bits of the float32, rounded to nearest even. */
    static short toBfloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        int rounding = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }
}
