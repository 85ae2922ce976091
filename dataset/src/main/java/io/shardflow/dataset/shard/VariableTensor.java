package io.shardflow.dataset.shard;

import io.shardflow.dataset.spec.TensorSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The values + offsets (+ shapes) form of one variable tensor across a shard's rows (FORMAT.md):
 * row {@code i} is {@code values[offsets[i]:offsets[i+1]]}, reshaped to {@code shapes[i]} when the
 * tensor has free dimensions. Plain datasets, so both writers produce it and h5py and PyTables read
 * it with slicing alone; HDF5 variable-length types would also do, but jHDF cannot write them and
 * HDF5 filters do not compress their heap.
 *
 * @param offsets       N+1 element offsets, from 0
 * @param shapes        per row its shape, {@code null} for string and bytes tensors
 * @param totalElements elements of all rows together
 */
record VariableTensor(TensorSpec tensor, long[] offsets, long[][] shapes, long totalElements) {

    /** Rows must already be validated: each row's bytes are a whole number of elements of its shape. */
    static VariableTensor of(TensorSpec tensor, List<SampleRow> rows) {
        Growing growing = new Growing(tensor);
        rows.forEach(growing::add);
        return growing.build();
    }

    /** The same form gathered row by row, for a writer that sees each row once and keeps none. */
    static final class Growing {

        private final TensorSpec tensor;
        private final List<long[]> shapes;
        private long[] offsets = new long[64];
        private int rows;

        Growing(TensorSpec tensor) {
            this.tensor = tensor;
            this.shapes = tensor.hasFreeDimension() ? new ArrayList<>() : null;
        }

        /** The row must already be validated. */
        void add(SampleRow row) {
            if (rows + 1 == offsets.length) {
                offsets = Arrays.copyOf(offsets, offsets.length * 2);
            }
            offsets[rows + 1] = offsets[rows] + row.tensors().get(tensor.name()).length / tensor.dtype().itemSize();
            if (shapes != null) {
                shapes.add(row.shapes().get(tensor.name()).stream().mapToLong(Integer::longValue).toArray());
            }
            rows++;
        }

        VariableTensor build() {
            return new VariableTensor(tensor, Arrays.copyOf(offsets, rows + 1),
                    shapes == null ? null : shapes.toArray(new long[0][]), offsets[rows]);
        }
    }

    /** The shapes as one flat array, row after row: what the streaming writer appends. */
    long[] flatShapes() {
        int rank = tensor.shape().size();
        long[] flat = new long[shapes.length * rank];
        for (int i = 0; i < shapes.length; i++) {
            System.arraycopy(shapes[i], 0, flat, i * rank, rank);
        }
        return flat;
    }
}
