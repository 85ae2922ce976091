package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.stack.S3Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    private static BenchOptions options(Set<String> figures) {
        return new BenchOptions(figures, List.of(S3Kind.S3PROXY), List.of(SampleShape.SMALL, SampleShape.LARGE), 1000, 100, 1000,
                List.of(64), List.of("hdf5"), Duration.ofSeconds(2), Duration.ofSeconds(10), 20, Path.of("work"), Path.of("."), null, 1000,
                1L << 30, 0.25, List.of(1, 2, 4), 3);
    }

    @Test
    void shouldRunEveryFigureWhenNoneIsNamed() {
        assertThat(BenchOptions.FIGURES).allMatch(options(Set.of())::runs);
        assertThat(options(Set.of("p2")).runs("p1")).isFalse();
    }

    @Test
    void shouldRefuseAnUnknownFigure() {
        assertThatThrownBy(() -> options(Set.of("p9"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("p9");
    }

    @Test
    void shouldCarryTheSameTensorBytesInEverySampleSize() {
        assertThat(SampleShape.SMALL.tensorBytes()).isEqualTo(12_296);
        assertThat(SampleShape.LARGE.tensorBytes()).isEqualTo(150_536);
        assertThat(options(Set.of()).samplesOf(SampleShape.LARGE)).isEqualTo(82); // 12,296,000 / 150,536
        assertThat(SampleShape.parse("64").name()).isEqualTo("49KB");
        assertThatThrownBy(() -> SampleShape.parse("huge")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldSayWhichCommandMeasuresWhatItMeasured() {
        assertThat(options(Set.of("cpu", "p1a")).reproduce())
                .isEqualTo("bin/shardflow bench --only cpu,p1a --s3 s3proxy --samples 1000 --warmup 100 --steady-gb 1.073741824");
        assertThat(options(Set.of("p5")).reproduce()).endsWith("--quota 0.25 --scale-out 1,2,4");
    }
}
