package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the page index costs the shard writer: a build (write the HDF5 file, then hash it) with the
 * whole-file SHA-256 alone, as before, against one read that hashes the file and its 64 KiB pages
 * ({@link ShardFileDigest}), for 64 MiB shards of 12 KB samples from both writers, in one JVM, after
 * a warm-up; the two hashings alternate (a shared machine's load drifts), medians of 9. Off by default:
 * <pre>
 * mvn -B -o -pl dataset test -Dtest=PageIndexCostBenchmark -Dshardflow.bench=true
 * </pre>
 * Results go to {@code dataset/target/page-index-cost.txt}.
 */
@EnabledIfSystemProperty(named = "shardflow.bench", matches = "true")
class PageIndexCostBenchmark {

    private static final long MIB = 1L << 20;
    private static final int RUNS = 9;

    @TempDir
    Path tmp;

    private final List<String> report = new ArrayList<>();

    @Test
    void shouldMeasureTheHashingAShardBuildAdds() throws Exception {
        DatasetSpec spec = Specs.imageSpec("big", "v1");
        List<SampleRow> rows = GeneratedRows.ofTensorBytes(spec, 64 * MIB);
        line("%-6s %10s %12s %14s %16s %10s", "writer", "write ms", "sha256 ms", "sha256+pages ms", "build before ms",
                "build +%");
        for (ShardWriterKind kind : ShardWriterKind.values()) {
            Path file = tmp.resolve(kind.settingValue() + ".h5");
            kind.create().write(file, spec, new ShardId("big", "v1", 0, 0), rows); // warm-up
            ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE);
            ShardDigest.sha256(file);
            double write = median(() -> {
                kind.create().write(file, spec, new ShardId("big", "v1", 0, 0), rows);
                return null;
            });
            double[] beforeAfter = alternating(() -> ShardDigest.sha256(file),
                    () -> ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE));
            double before = beforeAfter[0];
            double after = beforeAfter[1];
            assertThat(ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE).sha256()).isEqualTo(ShardDigest.sha256(file));
            line("%-6s %10.0f %12.0f %14.0f %16.0f %9.1f%%", kind.settingValue(), write, before, after, write + before,
                    100 * (after - before) / (write + before));
        }
        line("file %.0f MB (in the page cache), %d cores, median of %d; hashing at %.0f MB/s per SHA-256 stream",
                Files.size(tmp.resolve("hdf5.h5")) / 1e6, Runtime.getRuntime().availableProcessors(), RUNS,
                Files.size(tmp.resolve("hdf5.h5")) / 1e3 / median(() -> ShardDigest.sha256(tmp.resolve("hdf5.h5"))));
        Files.writeString(Path.of("target", "page-index-cost.txt"), String.join("\n", report) + "\n", StandardCharsets.UTF_8);
    }

    /** Medians of {@code a} and {@code b}, run in turns. */
    private static double[] alternating(Supplier<Object> a, Supplier<Object> b) {
        double[] first = new double[RUNS];
        double[] second = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            first[i] = millis(a);
            second[i] = millis(b);
        }
        Arrays.sort(first);
        Arrays.sort(second);
        return new double[] {first[RUNS / 2], second[RUNS / 2]};
    }

    private static double millis(Supplier<Object> run) {
        long start = System.nanoTime();
        run.get();
        return (System.nanoTime() - start) / 1e6;
    }

    private static double median(Supplier<Object> run) {
        double[] ms = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long start = System.nanoTime();
            run.get();
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(ms);
        return ms[RUNS / 2];
    }

    private void line(String format, Object... args) {
        String text = String.format(format, args);
        report.add(text);
        System.out.println(text);
    }
}
