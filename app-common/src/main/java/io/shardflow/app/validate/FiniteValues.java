package io.shardflow.app.validate;

import io.shardflow.schemas.DType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Whether a floating-point tensor holds no NaN or infinity: in every IEEE format (and bfloat16)
 * those are exactly the values whose exponent bits are all set. Tensor bytes are little-endian.
 * The check runs over every byte of every accepted sample, so it reads the bytes eight at a time
 * and tests all the lanes of a word at once without a branch (see {@link #noLaneAllSet}), deciding
 * once per block of words rather than once per element or word.
 */
final class FiniteValues {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Bytes tested between two decisions: long enough for the loop to run branch-free, short enough to stop early. */
    private static final int BLOCK_BYTES = 64 * Long.BYTES;

    private static final Lanes FLOAT32 = new Lanes(0x7F80_0000_7F80_0000L, 0x0000_0001_0000_0001L, 0x8000_0000_8000_0000L);
    private static final Lanes FLOAT64 = new Lanes(0x7FF0_0000_0000_0000L, 0x0000_0000_0000_0001L, 0x8000_0000_0000_0000L);
    private static final Lanes FLOAT16 = new Lanes(0x7C00_7C00_7C00_7C00L, 0x0001_0001_0001_0001L, 0x8000_8000_8000_8000L);
    private static final Lanes BFLOAT16 = new Lanes(0x7F80_7F80_7F80_7F80L, 0x0001_0001_0001_0001L, 0x8000_8000_8000_8000L);

    /**
     * One format's masks over the lanes of a 64-bit word: its exponent bits, the lowest bit and the
     * sign bit of each lane.
     */
    private record Lanes(long exponents, long ones, long signs) {
    }

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
            case FLOAT32 -> noLaneAllSet(bytes, from, to, FLOAT32);
            case FLOAT64 -> noLaneAllSet(bytes, from, to, FLOAT64);
            case FLOAT16 -> noLaneAllSet(bytes, from, to, FLOAT16);
            case BFLOAT16 -> noLaneAllSet(bytes, from, to, BFLOAT16);
            default -> true;
        };
    }

    /**
     * Whether no lane of the words in {@code [from, to)} has all its exponent bits set. Per word,
     * {@code (word & exponents) ^ exponents} leaves a lane zero exactly where its exponent is all
     * ones, and any other lane holds only exponent bits, so it is at least 1 and its sign bit is
     * clear. Subtracting 1 from every lane then sets a lane's sign bit exactly where the lane was
     * zero (a borrow into the next lane takes it from at least 1 to no less than 0, or from 0,
     * which is flagged anyway). The results are OR-ed over a block and the sign bits tested once.
     * The last bytes that do not fill a word are read into one zero-padded word, whose padding
     * lanes have no exponent bits set and so are never flagged.
     */
    private static boolean noLaneAllSet(byte[] bytes, int from, int to, Lanes lanes) {
        long exponents = lanes.exponents();
        long ones = lanes.ones();
        int wordsEnd = from + ((to - from) & -Long.BYTES);
        for (int block = from; block < wordsEnd; block += BLOCK_BYTES) {
            int end = block + Math.min(BLOCK_BYTES, wordsEnd - block);
            long flags = 0;
            for (int i = block; i < end; i += Long.BYTES) {
                flags |= (((long) LONGS.get(bytes, i) & exponents) ^ exponents) - ones;
            }
            if ((flags & lanes.signs()) != 0) {
                return false;
            }
        }
        long tail = 0;
        for (int i = to - 1; i >= wordsEnd; i--) {
            tail = tail << Byte.SIZE | (bytes[i] & 0xFF);
        }
        return ((((tail & exponents) ^ exponents) - ones) & lanes.signs()) == 0;
    }
}
