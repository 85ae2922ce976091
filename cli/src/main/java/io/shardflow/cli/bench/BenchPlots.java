package io.shardflow.cli.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The suite's PNG plots (XChart): throughput beside the raw baselines, the seal-latency CDF, and
 * the sink's heap and RSS by shard size. A plot with no data to show is not written.
 */
public final class BenchPlots {

    public static final String THROUGHPUT = "throughput-vs-raw.png";
    public static final String SEAL_LATENCY = "seal-latency-cdf.png";
    public static final String SINK_MEMORY = "sink-memory-vs-shard-size.png";
    public static final String EDGE = "edge-throughput-vs-raw.png";
    private static final String MB_PER_SECOND = "MB/s";
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 600;

    private BenchPlots() {
    }

    /** Writes every plot the results have data for into {@code dir}; returns the files written. */
    public static List<Path> write(BenchResults results, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true"); // no display on a build machine
        List<Path> written = new ArrayList<>();
        List<Measurement> rates = results.figures().stream()
                .filter(row -> row.measured() && row.baseline() != null && MB_PER_SECOND.equals(row.unit())).toList();
        if (!rates.isEmpty()) {
            written.add(save(throughput(rates), dir.resolve(THROUGHPUT)));
        }
        if (results.sealLatency().stream().anyMatch(series -> !series.millis().isEmpty())) {
            written.add(save(sealLatency(results.sealLatency()), dir.resolve(SEAL_LATENCY)));
        }
        if (results.sinkMemory().stream().anyMatch(MemoryPoint::completed)) {
            written.add(save(sinkMemory(results.sinkMemory()), dir.resolve(SINK_MEMORY)));
        }
        List<Measurement> edge = results.figures().stream()
                .filter(row -> row.measured() && row.baseline() != null && "EDGE".equals(row.figure())).toList();
        if (!edge.isEmpty()) {
            written.add(save(edge(edge), dir.resolve(EDGE)));
        }
        return written;
    }

    static CategoryChart throughput(List<Measurement> rates) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Throughput beside the raw baseline of the same run").yAxisTitle(MB_PER_SECOND).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setXAxisLabelRotation(20);
        List<String> cases = rates.stream().map(row -> row.figure() + " " + row.label() + " " + row.s3()).toList();
        chart.addSeries("shardflow", cases, rates.stream().map(Measurement::value).toList());
        chart.addSeries("raw baseline", cases, rates.stream().map(Measurement::baseline).toList());
        return chart;
    }

    /** The edge SDK per way of sending and size: its rate over raw confluent-kafka's in the same run, beside the goal. */
    static CategoryChart edge(List<Measurement> rows) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Edge SDK: samples queued and delivered / raw confluent-kafka, same records, same run")
                .yAxisTitle("ratio to raw").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setYAxisMin(0.0);
        List<String> cases = rows.stream().map(row -> row.label().replace("Python SDK ", "").replace(", then delivered", "")).toList();
        chart.addSeries("ratio", cases, rows.stream().map(Measurement::ratio).toList());
        chart.addSeries("goal", cases, rows.stream().map(row -> Double.parseDouble(row.goal().replace(">=", "").trim())).toList());
        return chart;
    }

    static XYChart sealLatency(List<LatencySeries> series) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Seal latency: first sample of a shard to snapshot visible").xAxisTitle("seconds").yAxisTitle("fraction of shards").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
        for (LatencySeries one : series) {
            if (one.millis().isEmpty()) {
                continue;
            }
            List<double[]> cdf = Percentiles.cdf(one.millis());
            XYSeries line = chart.addSeries(one.label() + " " + one.s3(), cdf.stream().map(point -> point[0] / 1000).toList(),
                    cdf.stream().map(point -> point[1]).toList());
            line.setMarker(SeriesMarkers.NONE);
            double goal = (one.maxAgeMillis() + 2000) / 1000.0;
            chart.addSeries("goal p99 <= max age + 2 s (" + one.label() + ")", List.of(goal, goal), List.of(0.0, 1.0))
                    .setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    static XYChart sinkMemory(List<MemoryPoint> points) {
        String failures = points.stream().filter(point -> !point.completed())
                .map(point -> point.writer() + " " + point.shardMib() + " MiB: " + point.outcome()).collect(Collectors.joining("; "));
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title("shard-sink memory by shard size" + (failures.isEmpty() ? "" : " (" + failures + ")"))
                .xAxisTitle("shard size (MiB)").yAxisTitle("MB").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        for (String writer : points.stream().map(MemoryPoint::writer).distinct().toList()) {
            addSeries(chart, writer + " peak heap", points, point -> point.writer().equals(writer) && point.completed(), MemoryPoint::peakHeapMb);
            addSeries(chart, writer + " peak RSS", points, point -> point.writer().equals(writer) && point.completed(), MemoryPoint::peakRssMb);
            // where the sink died, what it had reached: the heap at its limit says why
            addSeries(chart, writer + " peak heap before it died", points, point -> point.writer().equals(writer) && !point.completed(),
                    MemoryPoint::peakHeapMb);
        }
        List<Integer> sizes = points.stream().map(MemoryPoint::shardMib).distinct().sorted().toList();
        if (sizes.size() > 1) {
            double limitMb = SinkMemoryFigure.HEAP_LIMIT_MIB * 1.048576;
            chart.addSeries("heap limit (" + points.get(0).heapLimit() + ")", List.of(sizes.get(0), sizes.get(sizes.size() - 1)),
                    List.of(limitMb, limitMb)).setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    private static void addSeries(XYChart chart, String name, List<MemoryPoint> points, Predicate<MemoryPoint> which,
                                  Function<MemoryPoint, Double> megabytes) {
        List<MemoryPoint> chosen = points.stream().filter(which).filter(point -> megabytes.apply(point) != null).toList();
        if (!chosen.isEmpty()) {
            chart.addSeries(name, chosen.stream().map(MemoryPoint::shardMib).toList(), chosen.stream().map(megabytes).toList());
        }
    }

    private static Path save(Chart<?, ?> chart, Path file) throws IOException {
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
