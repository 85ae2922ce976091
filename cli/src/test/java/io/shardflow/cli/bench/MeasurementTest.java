package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.cli.JsonOutput;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MeasurementTest {

    static MachineInfo machine() {
        return new MachineInfo(2, 24L << 30, "OpenJDK 64-Bit Server VM 17", "Linux", Instant.parse("2026-11-23T01:00:00Z"), "abc123");
    }

    @Test
    void shouldComputeTheRatioToTheBaselineAndWhetherTheGoalHolds() {
        Measurement met = Measurement.againstBaseline("P1", "12KB samples", "s3proxy", 45, "MB/s", 60, "raw", ">= 0.6", 0.6, null);
        Measurement missed = Measurement.againstBaseline("P1", "12KB samples", "minio", 20, "MB/s", 80, "raw", ">= 0.6", 0.6, null);

        assertThat(met.ratio()).isEqualTo(0.75);
        assertThat(met.met()).isTrue();
        assertThat(missed.ratio()).isEqualTo(0.25);
        assertThat(missed.met()).isFalse();
    }

    @Test
    void shouldLeaveRatioAndVerdictEmptyWithoutAPositiveBaseline() {
        Measurement noBaseline = Measurement.againstBaseline("P1", "x", "s3proxy", 45, "MB/s", 0, "raw", ">= 0.6", 0.6, null);

        assertThat(noBaseline.ratio()).isNull();
        assertThat(noBaseline.met()).isNull();
    }

    @Test
    void shouldKeepTheFiguresOwnVerdictForCosts() {
        Measurement bytes = Measurement.withGoal("bytes", "12KB", "s3proxy", 2.1, "B/B", 1.05, "raw", "<= 1.2", false, null);

        assertThat(bytes.ratio()).isEqualTo(2.0);
        assertThat(bytes.met()).isFalse();
    }

    @Test
    void shouldWriteNullsNeverNaNForAFigureNotMeasured() throws Exception {
        BenchRecorder recorder = new BenchRecorder();
        recorder.add(Measurement.notMeasured("P3", "reader", "s3proxy", ">= 0.8", "no script"));
        recorder.add(Measurement.againstBaseline("P1", "12KB samples", "s3proxy", 45, "MB/s", 60, "raw", ">= 0.6", 0.6, "3000 samples"));
        recorder.add(new LatencySeries("12KB samples", "s3proxy", 2000, List.of(2100L, 2900L)));
        recorder.add(new MemoryPoint("jhdf", 256, "-Xmx512m", "OutOfMemoryError", null, 610.0));

        String json = JsonOutput.write(recorder.results(machine(), Map.of("samples12KB", 3000)));
        JsonNode tree = new ObjectMapper().readTree(json);

        assertThat(json).doesNotContain("NaN");
        assertThat(tree.at("/machine/cores").asInt()).isEqualTo(2);
        assertThat(tree.at("/machine/gitCommit").asText()).isEqualTo("abc123");
        assertThat(tree.at("/machine/date").asText()).isEqualTo("2026-11-23T01:00:00Z");
        assertThat(tree.at("/figures/0/value").isNull()).isTrue();
        assertThat(tree.at("/figures/0/detail").asText()).isEqualTo("no script");
        assertThat(tree.at("/figures/1/ratio").asDouble()).isEqualTo(0.75);
        assertThat(tree.at("/sealLatency/0/millis/1").asLong()).isEqualTo(2900);
        assertThat(tree.at("/sinkMemory/0/outcome").asText()).isEqualTo("OutOfMemoryError");
        assertThat(tree.at("/settings/samples12KB").asInt()).isEqualTo(3000);
    }
}
