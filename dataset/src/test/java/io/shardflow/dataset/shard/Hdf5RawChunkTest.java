package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bytedeco.hdf5.global.hdf5.H5Dclose;
import static org.bytedeco.hdf5.global.hdf5.H5Dopen2;
import static org.bytedeco.hdf5.global.hdf5.H5Dread_chunk;
import static org.bytedeco.hdf5.global.hdf5.H5F_ACC_RDONLY;
import static org.bytedeco.hdf5.global.hdf5.H5Fclose;
import static org.bytedeco.hdf5.global.hdf5.H5Fopen;
import static org.bytedeco.hdf5.global.hdf5.H5P_DEFAULT;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.bytedeco.javacpp.BytePointer;

/**
 * Uncompressed chunks are stored straight from the column's buffer ({@link Hdf5Column}), which is
 * reused chunk after chunk: the last chunk's unused tail must be zero (the fill value), never the
 * previous chunk's rows or uninitialised memory, or the same rows would not always give the same
 * bytes (docs/ARCHITECTURE.md, invariant 2). Read here as stored, chunk by chunk, with the C library.
 */
class Hdf5RawChunkTest {

    private static final DatasetSpec SPEC = Specs.imageSpec("raw", "v1");
    /** float32 3x32x32: 85 rows to a 1 MiB chunk. */
    private static final int ROW_BYTES = 3 * 32 * 32 * 4;

    @Property(tries = 12)
    void everyStoredChunkHoldsItsRowsAndZerosAfterThem(@ForAll @IntRange(min = 1, max = 400) int rowCount) throws Exception {
        Path dir = Files.createTempDirectory("raw-chunks");
        Path file = dir.resolve("shard.h5");
        GeneratedRows rows = new GeneratedRows(SPEC, rowCount);
        try (ShardAppender appender = new StreamingShardWriter().open(file, SPEC, new ShardId("raw", "v1", 0, 0), rowCount)) {
            rows.forEach(appender::append);
            appender.finish();
        }
        long chunkRows = ChunkSizes.chunkRows(ROW_BYTES, rowCount);
        for (long first = 0; first < rowCount; first += chunkRows) {
            byte[] chunk = readChunk(file, "tensors/image", first, chunkRows * ROW_BYTES);
            int stored = (int) Math.min(chunkRows, rowCount - first);
            for (int i = 0; i < stored; i++) {
                assertThat(Arrays.copyOfRange(chunk, i * ROW_BYTES, (i + 1) * ROW_BYTES))
                        .isEqualTo(rows.get((int) first + i).tensors().get("image"));
            }
            byte[] tail = Arrays.copyOfRange(chunk, stored * ROW_BYTES, chunk.length);
            assertThat(tail).as("tail of the chunk at row %d", first).hasSize((int) ((chunkRows - stored) * ROW_BYTES));
            assertThat(nonZero(tail)).as("non-zero bytes in the tail of the chunk at row %d", first).isZero();
        }
        Files.delete(file);
        Files.delete(dir);
    }

    private static int nonZero(byte[] bytes) {
        int count = 0;
        for (byte b : bytes) {
            count += b == 0 ? 0 : 1;
        }
        return count;
    }

    private static byte[] readChunk(Path file, String dataset, long firstRow, long chunkBytes) {
        synchronized (StreamingShardWriter.LIBRARY) {
            long fileId = H5Fopen(file.toString(), H5F_ACC_RDONLY(), H5P_DEFAULT);
            assertThat(fileId).isNotNegative();
            long datasetId = H5Dopen2(fileId, dataset, H5P_DEFAULT);
            try (BytePointer buffer = new BytePointer(chunkBytes)) {
                assertThat(datasetId).isNotNegative();
                int[] filters = new int[1];
                assertThat(H5Dread_chunk(datasetId, H5P_DEFAULT, new long[] {firstRow, 0, 0, 0}, filters, buffer)).isNotNegative();
                byte[] chunk = new byte[Math.toIntExact(chunkBytes)];
                buffer.position(0).get(chunk);
                return chunk;
            } finally {
                H5Dclose(datasetId);
                H5Fclose(fileId);
            }
        }
    }
}
