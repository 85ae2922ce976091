package io.shardflow.dataset.spec;

/** Reads the 16-bit float formats ({@link DType#FLOAT16}, {@link DType#BFLOAT16}) as Java floats, exactly. */
public final class HalfFloats {

    private HalfFloats() {
    }

    /** IEEE 754 binary16 bits to float (every half value is exact in a float). */
    public static float float16(short bits) {
        int sign = (bits & 0x8000) << 16;
        int exponent = (bits >>> 10) & 0x1F;
        int mantissa = bits & 0x3FF;
        if (exponent == 0x1F) {
            return Float.intBitsToFloat(sign | 0x7F800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float magnitude = mantissa * 0x1p-24f; // subnormal: mantissa x 2^-24
            return sign != 0 ? -magnitude : magnitude;
        }
        return Float.intBitsToFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
    }

    /** bfloat16 bits are the top half of a float32's. */
    public static float bfloat16(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }
}
