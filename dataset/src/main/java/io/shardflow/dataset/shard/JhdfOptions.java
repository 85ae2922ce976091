package io.shardflow.dataset.shard;

import io.jhdf.api.DatasetCreationOptions;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DType;
import java.util.List;

/** jHDF's creation options for one tensor dataset: its unsigned flag, and chunks and filters when compressed. */
final class JhdfOptions {

    private JhdfOptions() {
    }

    /**
     * @param rowShape dimensions after the first (row) one
     * @param rows     length of the first dimension; a chunk never exceeds it
     */
    static DatasetCreationOptions of(DType dtype, List<Integer> rowShape, long rows, Compression compression) {
        boolean unsigned = TensorArrays.writtenUnsigned(dtype);
        if (compression.isNone()) {
            return unsigned ? DatasetCreationOptions.builder().unsigned().build() : DatasetCreationOptions.DEFAULT;
        }
        DatasetCreationOptions.Builder builder = DatasetCreationOptions.builder();
        if (unsigned) {
            builder.unsigned();
        }
        builder.chunkDimensions(chunkDimensions(dtype, rowShape, rows)).shuffle();
        switch (compression.codec()) {
            case GZIP -> builder.deflate(compression.level());
            case LZF -> builder.filter(new LzfEncodingFilter(), LzfEncodingFilter.clientData(
                    ChunkSizes.chunkRows(ChunkSizes.rowBytes(dtype, rowShape), rows) * ChunkSizes.rowBytes(dtype, rowShape)));
            default -> throw new IllegalStateException("unhandled codec " + compression);
        }
        return builder.build();
    }

    private static int[] chunkDimensions(DType dtype, List<Integer> rowShape, long rows) {
        int[] dims = new int[rowShape.size() + 1];
        dims[0] = Math.toIntExact(ChunkSizes.chunkRows(ChunkSizes.rowBytes(dtype, rowShape), rows));
        for (int d = 0; d < rowShape.size(); d++) {
            dims[d + 1] = rowShape.get(d);
        }
        return dims;
    }
}
