package io.shardflow.app.validate;

import io.shardflow.schemas.DType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Whether a floating-point tensor holds no NaN or infinity: in every IEEE format (and bfloat16)
 * those are exactly the values whose exponent bits are all set. Tensor bytes are little-endian.
 * The bytes are read eight at a time from the buffer's array, each word tested lane by lane against
 * the exponent mask: a check that runs over every byte of every accepted sample, so it is done in
 * bulk rather than element by element through a typed view of the buffer.
 */
final class FiniteValues {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    private static final int FLOAT32_EXPONENT = 0x7F80_0000;
    private static final long FLOAT64_EXPONENT = 0x7FF0_0000_0000_0000L;
    private static final int FLOAT16_EXPONENT = 0x7C00;
    private static final int BFLOAT16_EXPONENT = 0x7F80;

    private FiniteValues() {
    }

    /** True for non-float dtypes; the buffer's length is a whole number of elements (checked before). */
    static boolean allFinite(DType dtype, ByteBuffer data) {
        if (!data.hasArray()) {
            ByteBuffer copy = ByteBuffer.allocate(data.remaining());
            copy.put(data.duplicate()).flip();
            return allFinite(dtype, copy);
        }
        byte[] bytes = data.array();
        int from = data.arrayOffset() + data.position();
        int to = from + data.remaining();
        return switch (dtype) {
            case FLOAT32 -> none32(bytes, from, to);
            case FLOAT64 -> none64(bytes, from, to);
            case FLOAT16 -> none16(bytes, from, to, FLOAT16_EXPONENT);
            case BFLOAT16 -> none16(bytes, from, to, BFLOAT16_EXPONENT);
            default -> true;
        };
    }

    private static boolean none32(byte[] bytes, int from, int to) {
        long low = FLOAT32_EXPONENT & 0xFFFF_FFFFL;
        long high = low << 32;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = (long) LONGS.get(bytes, i);
            if ((word & low) == low | (word & high) == high) {
                return false;
            }
        }
        for (; i + Integer.BYTES <= to; i += Integer.BYTES) {
            if (((int) INTS.get(bytes, i) & FLOAT32_EXPONENT) == FLOAT32_EXPONENT) {
                return false;
            }
        }
        return true;
    }

    private static boolean none64(byte[] bytes, int from, int to) {
        for (int i = from; i + Long.BYTES <= to; i += Long.BYTES) {
            if (((long) LONGS.get(bytes, i) & FLOAT64_EXPONENT) == FLOAT64_EXPONENT) {
                return false;
            }
        }
        return true;
    }

    private static boolean none16(byte[] bytes, int from, int to, int exponent) {
        long lane0 = exponent;
        long lane1 = lane0 << 16;
        long lane2 = lane0 << 32;
        long lane3 = lane0 << 48;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = (long) LONGS.get(bytes, i);
            if ((word & lane0) == lane0 | (word & lane1) == lane1 | (word & lane2) == lane2 | (word & lane3) == lane3) {
                return false;
            }
        }
        for (; i + Short.BYTES <= to; i += Short.BYTES) {
            if (((short) SHORTS.get(bytes, i) & exponent) == exponent) {
                return false;
            }
        }
        return true;
    }
}
