package io.shardflow.console.render;

import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.HalfFloats;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A row's tensor bytes (little-endian, C order: dataset/FORMAT.md) read as numbers or text, for
 * statistics, label values and the slices shown beside a sample.
 */
public final class TensorValues {

    private TensorValues() {
    }

    /** Whether elements of this dtype are numbers (everything but string and bytes). */
    public static boolean numeric(DType dtype) {
        return !dtype.variableLength();
    }

    public static int count(DType dtype, byte[] row) {
        return row.length / dtype.itemSize();
    }

    /** Element {@code i} as a double (64-bit integers beyond 2^53 lose precision: fine for statistics). */
    public static double at(DType dtype, byte[] row, int i) {
        ByteBuffer b = ByteBuffer.wrap(row).order(ByteOrder.LITTLE_ENDIAN);
        int at = i * dtype.itemSize();
        return switch (dtype) {
            case BOOL -> row[at] != 0 ? 1 : 0;
            case UINT8 -> Byte.toUnsignedInt(row[at]);
            case INT8 -> row[at];
            case INT16 -> b.getShort(at);
            case UINT16 -> Short.toUnsignedInt(b.getShort(at));
            case INT32 -> b.getInt(at);
            case UINT32 -> Integer.toUnsignedLong(b.getInt(at));
            case INT64 -> b.getLong(at);
            case UINT64 -> unsigned(b.getLong(at));
            case FLOAT16 -> HalfFloats.float16(b.getShort(at));
            case BFLOAT16 -> HalfFloats.bfloat16(b.getShort(at));
            case FLOAT32 -> b.getFloat(at);
            case FLOAT64 -> b.getDouble(at);
            case STRING, BYTES -> throw new IllegalArgumentException(dtype + " has no numeric elements");
        };
    }

    /** Element {@code i} as the text numpy would print for it (integers exactly, floats shortest). */
    public static String text(DType dtype, byte[] row, int i) {
        ByteBuffer b = ByteBuffer.wrap(row).order(ByteOrder.LITTLE_ENDIAN);
        int at = i * dtype.itemSize();
        return switch (dtype) {
            case BOOL -> row[at] != 0 ? "true" : "false";
            case INT64 -> Long.toString(b.getLong(at));
            case UINT64 -> Long.toUnsignedString(b.getLong(at));
            case FLOAT32 -> Float.toString(b.getFloat(at));
            case FLOAT16, BFLOAT16 -> Float.toString((float) at(dtype, row, i));
            case FLOAT64 -> Double.toString(b.getDouble(at));
            default -> Long.toString((long) at(dtype, row, i));
        };
    }

    /**
     * A whole value as one short text: a scalar's value, a string's text, a small array's elements,
     * the hex of short bytes. The label of a sample and the keys of label histograms use it.
     */
    public static String label(DType dtype, byte[] row, boolean scalar) {
        if (dtype == DType.STRING) {
            return new String(row, StandardCharsets.UTF_8);
        }
        if (dtype == DType.BYTES) {
            return HexFormat.of().formatHex(row, 0, Math.min(row.length, 32)) + (row.length > 32 ? "\u2026" : "");
        }
        int n = count(dtype, row);
        if (scalar && n == 1) {
            return text(dtype, row, 0);
        }
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < Math.min(n, 16); i++) {
            out.append(i > 0 ? ", " : "").append(text(dtype, row, i));
        }
        return out.append(n > 16 ? ", \u2026]" : "]").toString();
    }

    private static double unsigned(long value) {
        double d = (double) (value & Long.MAX_VALUE);
        return value < 0 ? d + 0x1p63 : d;
    }
}
