package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchPlotsTest {

    @TempDir
    Path dir;

    private static BenchResults results(List<Measurement> rows, List<LatencySeries> latency, List<MemoryPoint> memory) {
        return new BenchResults(MeasurementTest.machine(), Map.of(), rows, latency, memory, Map.of());
    }

    @Test
    void shouldWriteThreePngsThatDecodeWithImageIo() throws Exception {
        BenchResults results = results(
                List.of(Measurement.againstBaseline("P1", "12KB samples", "s3proxy", 20, "MB/s", 71, "raw", ">= 0.6", 0.6, null),
                        Measurement.againstBaseline("P1a", "ingest", "s3proxy", 30, "MB/s", 90, "raw", ">= 0.8", 0.8, null),
                        Measurement.withGoal("P2", "seal p99", "s3proxy", 2.4, "s", 2, "age", "p99 <= age + 2 s", true, null)),
                List.of(new LatencySeries("12KB samples", "s3proxy", 2000, List.of(2100L, 2200L, 2600L))),
                List.of(new MemoryPoint("hdf5", 64, "-Xmx512m", "ok", 120.0, 300.0), new MemoryPoint("hdf5", 256, "-Xmx512m", "ok", 130.0, 310.0),
                        new MemoryPoint("jhdf", 64, "-Xmx512m", "ok", 400.0, 600.0),
                        new MemoryPoint("jhdf", 256, "-Xmx512m", "OutOfMemoryError", null, null)));

        List<Path> written = BenchPlots.write(results, dir);

        assertThat(written).containsExactly(dir.resolve(BenchPlots.THROUGHPUT), dir.resolve(BenchPlots.SEAL_LATENCY),
                dir.resolve(BenchPlots.SINK_MEMORY));
        for (Path png : written) {
            BufferedImage image = ImageIO.read(png.toFile());
            assertThat(image).as(png.toString()).isNotNull();
            assertThat(image.getWidth()).isEqualTo(1000);
            assertThat(image.getHeight()).isEqualTo(600);
            assertThat(distinctColours(image)).as("a blank image has one colour").isGreaterThan(2);
        }
    }

    @Test
    void shouldPlotTheEdgeSdksRatiosBesideTheirGoals() throws Exception {
        BenchResults results = results(List.of(
                Measurement.againstBaseline("EDGE", "Python SDK send(), durability fsync, then delivered, 64KiB", "s3proxy", 300, "samples/s",
                        1000, "raw confluent-kafka", ">= 0.9", 0.9, null),
                Measurement.againstBaseline("EDGE", "Python SDK send(), durability process, then delivered, 12KiB", "s3proxy", 5000,
                        "samples/s", 8000, "raw confluent-kafka", ">= 0.7", 0.7, null),
                Measurement.againstBaseline("EDGE-Q", "queue drain", "s3proxy", 10, "entries/s", 1, "SQLite", ">= 1", 1, null)),
                List.of(), List.of());

        List<Path> written = BenchPlots.write(results, dir);

        assertThat(written).containsExactly(dir.resolve(BenchPlots.EDGE));
        assertThat(distinctColours(ImageIO.read(written.get(0).toFile()))).isGreaterThan(2);
        assertThat(BenchPlots.edge(results.figures().subList(0, 2)).getSeriesMap().get("goal").getYData())
                .extracting(Number::doubleValue).containsExactly(0.9, 0.7);
    }

    @Test
    void shouldWriteNoPlotForWhichThereIsNoData() throws Exception {
        List<Path> written = BenchPlots.write(results(List.of(Measurement.notMeasured("P1", "x", "s3proxy", ">= 0.6", "failed")), List.of(),
                List.of(new MemoryPoint("jhdf", 256, "-Xmx512m", "OutOfMemoryError", null, null))), dir);

        assertThat(written).isEmpty();
    }

    @Test
    void shouldWriteJsonMarkdownAndPlotsTogether() throws Exception {
        BenchResults results = results(
                List.of(Measurement.againstBaseline("P1", "12KB samples", "s3proxy", 20, "MB/s", 71, "raw", ">= 0.6", 0.6, null)), List.of(),
                List.of());

        List<Path> written = BenchReport.write(results, dir.resolve("out"));

        assertThat(written).extracting(path -> path.getFileName().toString())
                .containsExactly(BenchReport.JSON, BenchReport.MARKDOWN, BenchPlots.THROUGHPUT);
    }

    private static long distinctColours(BufferedImage image) {
        return java.util.stream.IntStream.range(0, image.getWidth() * image.getHeight())
                .map(i -> image.getRGB(i % image.getWidth(), i / image.getWidth())).distinct().count();
    }
}
