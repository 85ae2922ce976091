package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class PercentilesTest {

    @Test
    void shouldInterpolateBetweenClosestRanksLikeNumpy() {
        List<Integer> values = List.of(4, 1, 3, 2);

        assertThat(Percentiles.of(values, 50)).isEqualTo(2.5);
        assertThat(Percentiles.of(values, 0)).isEqualTo(1.0);
        assertThat(Percentiles.of(values, 100)).isEqualTo(4.0);
        // numpy.percentile([1, 2, 3, 4], 99) == 3.97
        assertThat(Percentiles.of(values, 99)).isCloseTo(3.97, within(1e-9));
    }

    @Test
    void shouldGiveTheOnlyValueForEveryPercentileOfOne() {
        assertThat(Percentiles.of(List.of(7L), 1)).isEqualTo(7.0);
        assertThat(Percentiles.of(List.of(7L), 99)).isEqualTo(7.0);
    }

    @Test
    void shouldRefuseNoValuesAndPercentilesOutOfRange() {
        assertThatThrownBy(() -> Percentiles.of(List.of(), 50)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Percentiles.of(List.of(1), 101)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Percentiles.of(List.of(1), -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldBuildTheEmpiricalCdfInOrderEndingAtOne() {
        List<double[]> cdf = Percentiles.cdf(List.of(30L, 10L, 20L, 20L));

        assertThat(cdf).extracting(point -> point[0]).containsExactly(10.0, 20.0, 20.0, 30.0);
        assertThat(cdf).extracting(point -> point[1]).containsExactly(0.25, 0.5, 0.75, 1.0);
    }

    @Test
    void shouldSortLatencySeriesAndReportItsPercentiles() {
        LatencySeries series = new LatencySeries("12KB samples", "s3proxy", 2000, List.of(2400L, 2100L, 2300L, 2200L, 2500L));

        assertThat(series.millis()).containsExactly(2100L, 2200L, 2300L, 2400L, 2500L);
        assertThat(series.p50()).isEqualTo(2300.0);
        assertThat(series.p99()).isCloseTo(2496.0, within(1e-9));
    }
}
