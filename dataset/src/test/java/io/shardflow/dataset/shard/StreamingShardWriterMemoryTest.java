package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.shardflow.dataset.spec.Specs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streaming writer's heap does not grow with the shard: a JVM limited to 64 MiB of heap writes
 * a 300 MB shard with it, where the jHDF writer, which holds whole datasets in arrays, runs out.
 */
class StreamingShardWriterMemoryTest {

    private static final long SHARD_BYTES = 300_000_000L;
    private static final String HEAP = "-Xmx64m";

    @TempDir
    Path tmp;

    @Test
    void shouldWriteA300MbShardWithin64MibOfHeap() throws Exception {
        Path file = tmp.resolve("big.h5");

        ForkedJvm.Result result = fork("hdf5", file);

        assertThat(result.exitCode()).as(result.output()).isZero();
        GeneratedRows expected = GeneratedRows.ofTensorBytes(Specs.imageSpec("big", "v1"), SHARD_BYTES);
        int last = expected.size() - 1;
        assertThat(Files.size(file)).isGreaterThan(SHARD_BYTES);
        try (HdfFile hdf = new HdfFile(file)) {
            assertThat(((Number) hdf.getAttribute("sample_count").getData()).longValue()).isEqualTo(expected.size());
            Dataset image = hdf.getDatasetByPath("tensors/image");
            assertThat(image.getDimensions()).containsExactly(expected.size(), 3, 32, 32);
            float[][][][] lastImage = (float[][][][]) image.getData(new long[] {last, 0, 0, 0}, new int[] {1, 3, 32, 32});
            ByteBuffer lastBytes = ByteBuffer.allocate(3 * 32 * 32 * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (float[][] channel : lastImage[0]) {
                for (float[] line : channel) {
                    for (float value : line) {
                        lastBytes.putInt(Float.floatToRawIntBits(value));
                    }
                }
            }
            assertThat(lastBytes.array()).isEqualTo(expected.get(last).tensors().get("image"));
        }
    }

    @Test
    void shouldWriteTheSameBytesInTwoProcesses() throws Exception {
        // 406 rows of 85 per chunk: the last chunk is partial, its unused tail must not be stray memory
        Path first = tmp.resolve("first.h5");
        Path second = tmp.resolve("second.h5");

        ForkedJvm.Result a = fork("hdf5", first, 5_000_000L);
        ForkedJvm.Result b = fork("hdf5", second, 5_000_000L);

        assertThat(a.exitCode()).as(a.output()).isZero();
        assertThat(b.exitCode()).as(b.output()).isZero();
        assertThat(ShardDigest.sha256(first)).isEqualTo(ShardDigest.sha256(second));
    }

    @Test
    void shouldShowTheJhdfWriterRunsOutOfTheSameHeap() throws Exception {
        ForkedJvm.Result result = fork("jhdf", tmp.resolve("big.h5"));

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.output()).contains("OutOfMemoryError");
    }

    private ForkedJvm.Result fork(String writer, Path file) throws Exception {
        return fork(writer, file, SHARD_BYTES);
    }

    private ForkedJvm.Result fork(String writer, Path file, long bytes) throws Exception {
        return ForkedJvm.run(HEAP, 120, tmp.resolve(file.getFileName() + ".out"), WriteShardMain.class, writer, file.toString(),
                Long.toString(bytes));
    }
}
