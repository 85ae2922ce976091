package io.shardflow.dataset.shard;

import io.shardflow.dataset.spec.TensorSpec;
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
        int n = rows.size();
        long[] offsets = new long[n + 1];
        long[][] shapes = tensor.hasFreeDimension() ? new long[n][] : null;
        for (int i = 0; i < n; i++) {
            SampleRow row = rows.get(i);
            offsets[i + 1] = offsets[i] + row.tensors().get(tensor.name()).length / tensor.dtype().itemSize();
            if (shapes != null) {
                shapes[i] = row.shapes().get(tensor.name()).stream().mapToLong(Integer::longValue).toArray();
            }
        }
        return new VariableTensor(tensor, offsets, shapes, offsets[n]);
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
