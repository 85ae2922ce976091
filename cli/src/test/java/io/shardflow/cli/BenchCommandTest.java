package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bench once, small, on its own real local stack and pipeline, with output to a pipe. */
class BenchCommandTest {

    @TempDir
    Path work;

    @Test
    void shouldReportBothRatesAsJsonWithPlainProgressLinesOnStderr() throws Exception {
        CliRun run = CliRun.of("bench", "--samples", "2000", "--shard-samples", "500", "--work-dir", work.toString(), "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(run.out());
        assertThat(report.get("samples").asLong()).isEqualTo(2000);
        assertThat(report.get("rawKafka").get("samplesPerSecond").asDouble()).isPositive();
        assertThat(report.get("pipeline").get("samplesPerSecond").asDouble()).isPositive();
        assertThat(report.get("pipelineOverRaw").asDouble()).isPositive();
        List<String> progress = run.err().lines().filter(l -> l.matches("(raw kafka consume|pipeline publish|pipeline commit): .*"))
                .toList();
        assertThat(progress).anyMatch(l -> l.matches("raw kafka consume: 2000 samples done in [\\d.]+ s \\(\\d+ samples/s\\)"))
                .anyMatch(l -> l.matches("pipeline publish: 2000 samples done in [\\d.]+ s \\(\\d+ samples/s\\)"))
                .anyMatch(l -> l.matches("pipeline commit: 2000 samples done in [\\d.]+ s \\(\\d+ samples/s\\)"))
                .noneMatch(l -> l.contains("\r"));
    }
}
