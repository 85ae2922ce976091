package io.shardflow.console.web;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Charts drawn as inline SVG on the server: no chart library, no script, nothing fetched. Every label
 * goes through {@link Html#text}, so a hostile label value is drawn as text.
 */
public final class SvgCharts {

    /** One series of a line chart: its name and one value per x position. */
    public record Series(String name, String cssClass, List<Double> values) {
    }

    private static final int W = 640;
    private static final int H = 180;
    private static final int PAD_LEFT = 56;
    private static final int PAD_BOTTOM = 24;
    private static final String[] COLOURS = {"#2453a6", "#c2410c", "#067647"};

    private SvgCharts() {
    }

    /**
     * A step chart of growth per snapshot: each series scaled to its own maximum (samples, bytes and
     * shards differ by orders of magnitude), with the maximum printed in the legend.
     */
    public static String growth(List<Long> snapshotIds, List<Series> series, List<String> maxLabels) {
        StringBuilder svg = new StringBuilder();
        svg.append("<svg class=\"chart\" role=\"img\" aria-label=\"growth per snapshot\" width=\"").append(W)
                .append("\" height=\"").append(H + 20).append("\" viewBox=\"0 0 ").append(W).append(' ').append(H + 20).append("\">");
        int n = snapshotIds.size();
        double plotW = W - PAD_LEFT - 10;
        double plotH = H - PAD_BOTTOM - 10;
        svg.append(line(PAD_LEFT, 10, PAD_LEFT, 10 + plotH, "#d9dee8"))
                .append(line(PAD_LEFT, 10 + plotH, PAD_LEFT + plotW, 10 + plotH, "#d9dee8"));
        for (int s = 0; s < series.size(); s++) {
            List<Double> values = series.get(s).values();
            double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < n; i++) {
                double x = PAD_LEFT + (n == 1 ? plotW : plotW * i / (n - 1));
                double y = 10 + plotH - (max > 0 ? plotH * values.get(i) / max : 0);
                points.append(fmt(x)).append(',').append(fmt(y)).append(' ');
            }
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(COLOURS[s % COLOURS.length])
                    .append("\" class=\"").append(Html.text(series.get(s).cssClass())).append("\" points=\"").append(points)
                    .append("\"/>");
            int lx = PAD_LEFT + 8 + s * 190;
            svg.append("<rect x=\"").append(lx).append("\" y=\"").append(H + 6).append("\" width=\"10\" height=\"10\" fill=\"")
                    .append(COLOURS[s % COLOURS.length]).append("\"/><text x=\"").append(lx + 14).append("\" y=\"").append(H + 15)
                    .append("\">").append(Html.text(series.get(s).name() + " (max " + maxLabels.get(s) + ")")).append("</text>");
        }
        if (n > 0) {
            svg.append("<text x=\"").append(PAD_LEFT).append("\" y=\"").append(H - 6).append("\">#")
                    .append(snapshotIds.get(0)).append("</text><text x=\"").append(W - 60).append("\" y=\"").append(H - 6)
                    .append("\">#").append(snapshotIds.get(n - 1)).append("</text>");
        }
        svg.append("<text x=\"4\" y=\"20\">max</text><text x=\"4\" y=\"").append(fmt(10 + plotH)).append("\">0</text>");
        return svg.append("</svg>").toString();
    }

    /** Horizontal bars, one per key, longest first as given; {@code limit} bars at most. */
    public static String bars(Map<String, Long> counts, int limit) {
        List<Map.Entry<String, Long>> rows = counts.entrySet().stream().limit(limit).toList();
        long max = rows.stream().mapToLong(Map.Entry::getValue).max().orElse(1);
        int rowH = 18;
        int height = Math.max(rowH, rows.size() * rowH) + 4;
        StringBuilder svg = new StringBuilder("<svg class=\"chart\" role=\"img\" aria-label=\"histogram\" width=\"")
                .append(W).append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(W).append(' ').append(height)
                .append("\">");
        for (int i = 0; i < rows.size(); i++) {
            Map.Entry<String, Long> row = rows.get(i);
            double width = (W - 260) * (double) row.getValue() / Math.max(1, max);
            int y = 2 + i * rowH;
            svg.append("<text x=\"4\" y=\"").append(y + 13).append("\">").append(Html.text(Html.shorten(row.getKey(), 28)))
                    .append("</text><rect x=\"190\" y=\"").append(y + 2).append("\" height=\"13\" width=\"").append(fmt(Math.max(1, width)))
                    .append("\" fill=\"#2453a6\"/><text x=\"").append(fmt(196 + width)).append("\" y=\"").append(y + 13).append("\">")
                    .append(row.getValue()).append("</text>");
        }
        return svg.append("</svg>").toString();
    }

    private static String line(double x1, double y1, double x2, double y2, String colour) {
        return "<line x1=\"" + fmt(x1) + "\" y1=\"" + fmt(y1) + "\" x2=\"" + fmt(x2) + "\" y2=\"" + fmt(y2) + "\" stroke=\"" + colour + "\"/>";
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
