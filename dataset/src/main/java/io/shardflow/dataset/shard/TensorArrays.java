package io.shardflow.dataset.shard;

import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.TensorSpec;
import java.lang.reflect.Array;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.List;

/**
 * Converts between per-row flat little-endian bytes and the Java arrays jHDF reads and writes.
 *
 * <p>jHDF writes a dataset of shape (N, a, b) from a {@code float[N][a][b]}. Each innermost row is
 * filled with one bulk {@code get} from a typed view of the sample's bytes, so the cost is one
 * memcpy-like call per innermost row, with no boxing and no per-element loop.
 */
final class TensorArrays {

    private TensorArrays() {
    }

    /** The primitive Java element type jHDF writes for a dtype (BOOL and UINT8 go out as unsigned bytes). */
    static Class<?> writeType(DType dtype) {
        return switch (dtype) {
            case BOOL, UINT8, INT8 -> byte.class;
            case INT16 -> short.class;
            case INT32 -> int.class;
            case INT64 -> long.class;
            case FLOAT32 -> float.class;
            case FLOAT64 -> double.class;
        };
    }

    static boolean writtenUnsigned(DType dtype) {
        return dtype == DType.BOOL || dtype == DType.UINT8;
    }

    /** The (N, *shape) array for one tensor across all rows; rows must already be validated. */
    static Object toHdfArray(TensorSpec tensor, List<SampleRow> rows) {
        int[] dims = new int[tensor.shape().size() + 1];
        dims[0] = rows.size();
        for (int d = 0; d < tensor.shape().size(); d++) {
            dims[d + 1] = tensor.shape().get(d);
        }
        Object array = Array.newInstance(writeType(tensor.dtype()), dims);
        for (int i = 0; i < rows.size(); i++) {
            Buffer view = view(tensor.dtype(), rows.get(i).tensors().get(tensor.name()));
            if (tensor.isScalar()) {
                getOne(array, i, view);
            } else {
                fill(Array.get(array, i), view);
            }
        }
        return array;
    }

    private static void fill(Object array, Buffer view) {
        if (array instanceof Object[] nested) {
            for (Object inner : nested) {
                fill(inner, view);
            }
        } else {
            bulkGet(array, view);
        }
    }

    private static Buffer view(DType dtype, byte[] bytes) {
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return switch (dtype) {
            case BOOL, UINT8, INT8 -> le;
            case INT16 -> le.asShortBuffer();
            case INT32 -> le.asIntBuffer();
            case INT64 -> le.asLongBuffer();
            case FLOAT32 -> le.asFloatBuffer();
            case FLOAT64 -> le.asDoubleBuffer();
        };
    }

    private static void bulkGet(Object leaf, Buffer view) {
        if (leaf instanceof byte[] a) {
            ((ByteBuffer) view).get(a);
        } else if (leaf instanceof short[] a) {
            ((ShortBuffer) view).get(a);
        } else if (leaf instanceof int[] a) {
            ((IntBuffer) view).get(a);
        } else if (leaf instanceof long[] a) {
            ((LongBuffer) view).get(a);
        } else if (leaf instanceof float[] a) {
            ((FloatBuffer) view).get(a);
        } else if (leaf instanceof double[] a) {
            ((DoubleBuffer) view).get(a);
        } else {
            throw new IllegalStateException("unexpected array type " + leaf.getClass());
        }
    }

    private static void getOne(Object array, int index, Buffer view) {
        if (array instanceof byte[] a) {
            a[index] = ((ByteBuffer) view).get();
        } else if (array instanceof short[] a) {
            a[index] = ((ShortBuffer) view).get();
        } else if (array instanceof int[] a) {
            a[index] = ((IntBuffer) view).get();
        } else if (array instanceof long[] a) {
            a[index] = ((LongBuffer) view).get();
        } else if (array instanceof float[] a) {
            a[index] = ((FloatBuffer) view).get();
        } else if (array instanceof double[] a) {
            a[index] = ((DoubleBuffer) view).get();
        } else {
            throw new IllegalStateException("unexpected array type " + array.getClass());
        }
    }

    /**
     * Splits jHDF's flat read of a tensor dataset into per-row little-endian bytes.
     *
     * <p>jHDF promotes unsigned 8-bit data to {@code int[]} on read (Java has no unsigned byte), so
     * BOOL and UINT8 arrive as ints and are narrowed back.
     *
     * @param perRow elements per row
     */
    static byte[][] toRowBytes(String tensorName, Object flat, DType dtype, int rows, int perRow) {
        Class<?> expected = writtenUnsigned(dtype) ? int.class : writeType(dtype);
        if (flat.getClass().getComponentType() != expected) {
            throw new IllegalStateException("tensor '" + tensorName + "' is tagged " + dtype.numpyName()
                    + " but holds " + flat.getClass().getComponentType() + " data");
        }
        if ((long) rows * perRow != Array.getLength(flat)) {
            throw new IllegalStateException("tensor '" + tensorName + "' holds " + Array.getLength(flat)
                    + " elements, expected " + rows + " x " + perRow);
        }
        byte[][] out = new byte[rows][];
        for (int i = 0; i < rows; i++) {
            byte[] bytes = new byte[perRow * dtype.itemSize()];
            ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            int offset = i * perRow;
            if (flat instanceof byte[] a) {
                le.put(a, offset, perRow);
            } else if (flat instanceof int[] a && dtype.itemSize() == 1) {
                for (int k = 0; k < perRow; k++) {
                    bytes[k] = (byte) a[offset + k];
                }
            } else if (flat instanceof short[] a) {
                le.asShortBuffer().put(a, offset, perRow);
            } else if (flat instanceof int[] a) {
                le.asIntBuffer().put(a, offset, perRow);
            } else if (flat instanceof long[] a) {
                le.asLongBuffer().put(a, offset, perRow);
            } else if (flat instanceof float[] a) {
                le.asFloatBuffer().put(a, offset, perRow);
            } else if (flat instanceof double[] a) {
                le.asDoubleBuffer().put(a, offset, perRow);
            }
            out[i] = bytes;
        }
        return out;
    }
}
