package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write speed and peak heap/RSS of both shard writers for 64 MiB and 256 MiB shards of 12 KB samples
 * (float32 3x32x32 + int64), against a raw FileChannel write of the same tensor bytes in the same
 * run. Each case runs in a fresh JVM ({@link WriteShardMain}) so its peaks are its own, after a
 * 16 MiB warm-up shard. Peak heap under {@code -Xmx3g} counts garbage the collector had no reason to
 * reclaim yet; the last column, the same write under {@code -Xmx64m}, is the bound. Off by default:
 * <pre>
 * mvn -B -o -pl dataset test -Dtest=ShardWriterBenchmark -Dshardflow.bench=true
 * </pre>
 * Results go to {@code dataset/target/shard-writer-bench.txt}.
 */
@EnabledIfSystemProperty(named = "shardflow.bench", matches = "true")
class ShardWriterBenchmark {

    private static final long MIB = 1L << 20;
    /** Written first in each JVM, so JIT compilation and native library loading stay out of the figures. */
    private static final long WARMUP_BYTES = 16 * MIB;
    private static final List<String> WRITERS = List.of("raw", "jhdf", "hdf5");

    @TempDir
    Path tmp;

    private final List<String> report = new ArrayList<>();

    @Test
    void shouldMeasureBothWritersAgainstARawWrite() throws Exception {
        line("%-5s %8s %10s %9s %8s %12s %10s %s", "shard", "writer", "MB/s", "vs raw", "file MB", "peak heap MB",
                "peak RSS MB", "-Xmx64m");
        for (long size : List.of(64 * MIB, 256 * MIB)) {
            double rawSpeed = 0;
            for (String writer : WRITERS) {
                Run run = fork(writer, size, "-Xmx3g");
                double speed = run.payloadBytes / 1e6 / (run.elapsedNanos / 1e9);
                rawSpeed = writer.equals("raw") ? speed : rawSpeed;
                Run bounded = fork(writer, size, "-Xmx64m");
                String small = bounded.ok ? String.format("ok, heap %.0f MB, RSS %.0f MB", bounded.peakHeap / 1e6,
                        bounded.peakRssKib / 1024.0) : "OutOfMemoryError";
                line("%-5s %8s %10.0f %9.2f %8.1f %12.0f %10.0f %s", size / MIB + "M", writer, speed, speed / rawSpeed,
                        run.fileBytes / 1e6, run.peakHeap / 1e6, run.peakRssKib / 1024.0, small);
                assertThat(run.fileBytes).isGreaterThanOrEqualTo(run.payloadBytes);
            }
        }
        line("cores %d, -Xmx3g, 16 MiB warm-up shard per JVM, page cache (no fsync)", Runtime.getRuntime().availableProcessors());
        Files.writeString(Path.of("target", "shard-writer-bench.txt"), String.join("\n", report) + "\n", StandardCharsets.UTF_8);
    }

    private record Run(boolean ok, long elapsedNanos, long payloadBytes, long fileBytes, long peakHeap, long peakRssKib) {
    }

    private Run fork(String writer, long size, String heap) throws IOException, InterruptedException {
        Path file = tmp.resolve(writer + ".bin");
        Path output = tmp.resolve(writer + ".out");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), heap, "-cp", System.getProperty("java.class.path"),
                WriteShardMain.class.getName(), writer, file.toString(), Long.toString(size), Long.toString(WARMUP_BYTES))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError(writer + " did not finish within 300 s");
        }
        List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
        Files.deleteIfExists(file);
        if (process.exitValue() != 0) {
            return new Run(false, 0, 0, 0, 0, 0);
        }
        String[] f = lines.get(lines.size() - 1).trim().split(" ");
        return new Run(true, Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                Long.parseLong(f[4]));
    }

    private void line(String format, Object... args) {
        String line = String.format(format, args);
        report.add(line);
        System.out.println(line);
    }
}
