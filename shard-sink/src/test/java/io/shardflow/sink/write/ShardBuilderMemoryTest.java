package io.shardflow.sink.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.shardflow.dataset.shard.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink's heap does not grow with the shard when it writes with {@code shard.writer=hdf5}: a JVM
 * limited to 96 MiB builds a 400 MiB shard from a samples source that makes each record on demand,
 * through the whole build (read, check, convert, write, digest). The jHDF writer, which needs the
 * whole shard at once, runs out of the same heap.
 */
class ShardBuilderMemoryTest {

    private static final int ROWS = 400;
    private static final String HEAP = "-Xmx96m";

    @TempDir
    Path tmp;

    @Test
    void shouldBuildA400MibShardWithin96MibOfHeap() throws Exception {
        Path work = tmp.resolve("work");

        ForkedJvm.Result result = fork("hdf5", work);

        assertThat(result.exitCode()).as(result.output()).isZero();
        Path file;
        try (Stream<Path> files = Files.list(work)) {
            file = files.filter(f -> f.toString().endsWith(".h5")).findFirst().orElseThrow();
        }
        try (Stream<Path> files = Files.list(work)) {
            assertThat(files).as("no scratch file left beside the shard").containsExactly(file);
        }
        assertThat(Files.size(file)).isGreaterThan((long) ROWS * BuildShardMain.ROW_BYTES);
        try (HdfFile hdf = new HdfFile(file)) {
            assertThat(((Number) hdf.getAttribute("sample_count").getData()).longValue()).isEqualTo(ROWS);
            Dataset pixels = hdf.getDatasetByPath("tensors/pixels");
            assertThat(pixels.getDimensions()).containsExactly(ROWS, 1024, 1024);
            // Row i is the record at offset 2i+1: order and content survived the stream.
            for (int row : new int[] {0, 217, ROWS - 1}) {
                long offset = 2L * row + 1;
                // jHDF widens uint8 to int
                int[][][] first = (int[][][]) pixels.getData(new long[] {row, 0, 0}, new int[] {1, 1, 2});
                assertThat(first[0][0]).containsExactly(Byte.toUnsignedInt((byte) offset), Byte.toUnsignedInt((byte) (offset * 31)));
            }
        }
        assertThat(result.output().trim()).startsWith(ROWS + " " + Files.size(file) + " ");
    }

    @Test
    void shouldShowTheJhdfWriterRunsOutOfTheSameHeap() throws Exception {
        ForkedJvm.Result result = fork("jhdf", tmp.resolve("work"));

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.output()).contains("OutOfMemoryError");
    }

    private ForkedJvm.Result fork(String writer, Path work) throws Exception {
        return ForkedJvm.run(HEAP, 300, tmp.resolve(writer + ".out"), BuildShardMain.class, writer, work.toString(),
                Integer.toString(ROWS));
    }
}
