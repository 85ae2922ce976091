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

    /**
     * The primitive Java element type jHDF writes for a dtype. Unsigned types go out as the signed
     * type of the same width with jHDF's unsigned flag; bfloat16 as its uint16 bits; float16 has no
     * jHDF type ({@link #writableByJhdf}).
     */
    static Class<?> writeType(DType dtype) {
        return switch (dtype) {
            case BOOL, UINT8, INT8, STRING, BYTES -> byte.class;
            case INT16, UINT16, BFLOAT16, FLOAT16 -> short.class;
            case INT32, UINT32 -> int.class;
            case INT64, UINT64 -> long.class;
            case FLOAT32 -> float.class;
            case FLOAT64 -> double.class;
        };
    }

    static boolean writtenUnsigned(DType dtype) {
        return switch (dtype) {
            case BOOL, UINT8, UINT16, UINT32, UINT64, BFLOAT16, STRING, BYTES -> true;
            default -> false;
        };
    }

    /** jHDF writes no 16-bit float type: numpy would read the bits as int16. */
    static boolean writableByJhdf(DType dtype) {
        return dtype != DType.FLOAT16;
    }

    /** The (N, *shape) array for one fixed tensor across all rows; rows must already be validated. */
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

    /** All rows' elements of a variable tensor, concatenated into one 1-D array (the {@code values} dataset). */
    static Object toFlatArray(VariableTensor column, List<SampleRow> rows) {
        TensorSpec tensor = column.tensor();
        Object array = Array.newInstance(writeType(tensor.dtype()), Math.toIntExact(column.totalElements()));
        for (int i = 0; i < rows.size(); i++) {
            Buffer view = view(tensor.dtype(), rows.get(i).tensors().get(tensor.name()));
            int at = Math.toIntExact(column.offsets()[i]);
            int count = view.remaining();
            if (array instanceof byte[] a) {
                ((ByteBuffer) view).get(a, at, count);
            } else if (array instanceof short[] a) {
                ((ShortBuffer) view).get(a, at, count);
            } else if (array instanceof int[] a) {
                ((IntBuffer) view).get(a, at, count);
            } else if (array instanceof long[] a) {
                ((LongBuffer) view).get(a, at, count);
            } else if (array instanceof float[] a) {
                ((FloatBuffer) view).get(a, at, count);
            } else {
                ((DoubleBuffer) view).get((double[]) array, at, count);
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
        Class<?> type = writeType(dtype);
        if (type == byte.class) {
            return le;
        } else if (type == short.class) {
            return le.asShortBuffer();
        } else if (type == int.class) {
            return le.asIntBuffer();
        } else if (type == long.class) {
            return le.asLongBuffer();
        }
        return type == float.class ? le.asFloatBuffer() : le.asDoubleBuffer();
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
}
