package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MarkdownTableTest {

    private static String render(Measurement... rows) {
        return MarkdownTable.render(new BenchResults(MeasurementTest.machine(), Map.of(), List.of(rows), List.of(), List.of(), Map.of()));
    }

    @Test
    void shouldRenderOneRowPerFigureWithValueBaselineRatioGoalAndVerdict() {
        String table = render(Measurement.againstBaseline("P1", "12KB samples", "s3proxy", 19.94, "MB/s", 71.1, "raw Kafka produce+consume",
                ">= 0.6", 0.6, "20000 samples"));

        assertThat(table).contains("| figure | case | S3 | value | raw baseline | ratio | goal | met? |")
                .contains("| P1 | 12KB samples | s3proxy | 19.9 MB/s (20000 samples) | 71.1 MB/s (raw Kafka produce+consume) | 0.28 | >= 0.6 | no |")
                .contains("2 cores, 24.0 GiB memory").contains("commit abc123");
    }

    @Test
    void shouldSayNotMeasuredAndWhyWithoutInventingNumbers() {
        String table = render(Measurement.notMeasured("P3", "Python reader cold", "s3proxy", ">= 0.8", "no script | here"));

        assertThat(table).contains("| P3 | Python reader cold | s3proxy | not measured: no script \\| here | – | – | >= 0.8 | – |");
    }

    @Test
    void shouldRoundToAFewSignificantDigits() {
        assertThat(MarkdownTable.number(1234.567)).isEqualTo("1235");
        assertThat(MarkdownTable.number(71.06)).isEqualTo("71.1");
        assertThat(MarkdownTable.number(0.2816)).isEqualTo("0.28");
        assertThat(MarkdownTable.number(3.0)).isEqualTo("3");
    }
}
