package io.shardflow.dataset.shard;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Little-endian tensor bytes from Java values, for tests here and (via the test-jar) in other modules. */
public final class TensorBytes {

    private TensorBytes() {
    }

    public static byte[] float32(float... values) {
        ByteBuffer b = le(values.length * 4);
        b.asFloatBuffer().put(values);
        return b.array();
    }

    public static byte[] float64(double... values) {
        ByteBuffer b = le(values.length * 8);
        b.asDoubleBuffer().put(values);
        return b.array();
    }

    public static byte[] int64(long... values) {
        ByteBuffer b = le(values.length * 8);
        b.asLongBuffer().put(values);
        return b.array();
    }

    public static byte[] int32(int... values) {
        ByteBuffer b = le(values.length * 4);
        b.asIntBuffer().put(values);
        return b.array();
    }

    public static byte[] int16(short... values) {
        ByteBuffer b = le(values.length * 2);
        b.asShortBuffer().put(values);
        return b.array();
    }

    /** int8, uint8 and bool: one byte per element. */
    public static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
