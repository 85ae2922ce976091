package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.cli.bench.BenchPlots;
import io.shardflow.cli.bench.BenchReport;
import io.shardflow.cli.bench.CpuQuota;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The suite in its smallest form, every figure, on its own real local stack and services, with output to a pipe. */
class BenchCommandTest {

    @TempDir
    Path work;

    @Test
    void shouldMeasureEveryFigureBesideAPositiveBaselineAndWriteJsonMarkdownAndPlots() throws Exception {
        Path out = work.resolve("results");
        // Shards of 25: P1b's sink starts on the whole backlog and commits it 8 shards a round (4 per build
        // thread), so the warm-up must end in an early round for the timed window to see any shard.
        CliRun run = CliRun.of("bench", "--s3", "s3proxy", "--sizes", "12kb", "--samples", "400", "--warmup", "50", "--shard-samples", "25",
                "--shard-mib", "4", "--writers", "hdf5", "--seal-seconds", "5", "--work-dir", work.resolve("work").toString(),
                "--console-samples", "5000", "--steady-gb", "0.005", "--scale-out", "1,2", "--quota", "0.5", "--start-repeats", "1",
                "--out", out.toString(), "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(run.out());
        List<JsonNode> rows = new ArrayList<>();
        report.get("figures").forEach(rows::add);
        assertThat(rows).as(run.out()).noneMatch(row -> row.path("detail").asText().startsWith("failed"));
        // P5 needs a writable cpu cgroup controller; without one it is recorded as not measured, with the reason
        List<String> figures = CpuQuota.unavailable().isEmpty() ? List.of("P1", "bytes", "CPU", "P1a", "P1b", "P2", "P4", "P5", "START", "P6", "GW")
                : List.of("P1", "bytes", "CPU", "P1a", "P1b", "P2", "P4", "START", "P6", "GW");
        for (String figure : figures) {
            assertThat(rows).as(figure + " in " + run.out()).anyMatch(row -> row.get("figure").asText().equals(figure)
                    && row.get("value").asDouble() > 0 && row.get("baseline").asDouble() > 0 && row.get("ratio").asDouble() > 0);
        }
        // the command looks for the script in its checkout (shardflow.home, as bin/shardflow sets it), as this does
        boolean readerScript = Files.exists(Path.of(System.getProperty("shardflow.home", ".")).toAbsolutePath()
                .resolve("python/shardflow/tools/bench_read.py"));
        assertThat(rows).filteredOn(row -> row.get("figure").asText().equals("P3")).isNotEmpty().allMatch(row -> readerScript
                ? row.get("baseline").asDouble() > 0 : row.get("value").isNull() && row.get("detail").asText().contains("bench_read"));
        boolean edgeScript = Files.exists(Path.of(System.getProperty("shardflow.home", ".")).toAbsolutePath()
                .resolve("python/shardflow/edge/bench.py"));
        assertThat(rows).filteredOn(row -> row.get("figure").asText().startsWith("EDGE")).isNotEmpty().allMatch(row -> edgeScript
                ? row.get("baseline").asDouble() > 0 && row.get("value").asDouble() > 0
                : row.get("value").isNull() && row.get("detail").asText().contains("edge/bench.py"));
        assertThat(report.at("/machine/cores").asInt()).isPositive();
        assertThat(report.at("/machine/memoryBytes").asLong()).isPositive();
        assertThat(StreamSupport.stream(report.at("/sealLatency/0/millis").spliterator(), false)).isNotEmpty();
        assertThat(report.at("/sinkMemory/0/outcome").asText()).isEqualTo("ok");
        assertThat(report.at("/sinkMemory/0/peakRssMb").asDouble()).isPositive();
        assertThat(out.resolve(BenchReport.MARKDOWN)).content().contains("| P1 | 12KB samples | s3proxy |");
        assertThat(out.resolve(BenchReport.JSON)).exists();
        assertThat(out.resolve(BenchPlots.THROUGHPUT)).isNotEmptyFile();
        assertThat(out.resolve(BenchPlots.SEAL_LATENCY)).isNotEmptyFile();
        assertThat(out.resolve(BenchPlots.SINK_MEMORY)).isNotEmptyFile();
        assertThat(Files.exists(out.resolve(BenchPlots.EDGE))).as("the edge plot, where the edge bench ran").isEqualTo(edgeScript);
        assertThat(run.err().lines()).anyMatch(l -> l.matches("p1-12KB pipeline commit: 400 samples done in [\\d.]+ s \\(\\d+ samples/s\\)"))
                .noneMatch(l -> l.contains("\r"));
    }
}
