package io.shardflow.dataset.shard;

import io.shardflow.dataset.spec.DType;
import java.util.List;

/** How many rows one HDF5 chunk holds, the same for both writers. */
final class ChunkSizes {

    /** Target chunk size: large enough that per-write overhead vanishes, small enough to bound memory. */
    static final long TARGET_CHUNK_BYTES = 1L << 20;

    private ChunkSizes() {
    }

    static long rowBytes(DType dtype, List<Integer> rowShape) {
        long bytes = dtype.itemSize();
        for (int dim : rowShape) {
            bytes *= dim;
        }
        return bytes;
    }

    /** About {@link #TARGET_CHUNK_BYTES} of whole rows, at least one, never more rows than the dataset has. */
    static long chunkRows(long rowBytes, long totalRows) {
        return Math.max(1, Math.min(totalRows, TARGET_CHUNK_BYTES / rowBytes));
    }
}
