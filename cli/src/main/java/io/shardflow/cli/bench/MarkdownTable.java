package io.shardflow.cli.bench;

import java.util.Locale;

/**
 * The results as the markdown table of bench-results.md, which docs/performance.md includes:
 * figure | value | raw baseline | ratio | goal | met?.
 */
public final class MarkdownTable {

    private MarkdownTable() {
    }

    public static String render(BenchResults results) {
        StringBuilder text = new StringBuilder();
        MachineInfo machine = results.machine();
        text.append(String.format(Locale.ROOT, "Measured %s on %d cores, %.1f GiB memory, %s; commit %s.%n%n", machine.date(),
                machine.cores(), machine.memoryBytes() / (double) (1L << 30), machine.jvm(), machine.gitCommit()));
        text.append("| figure | case | S3 | value | raw baseline | ratio | goal | met? |\n");
        text.append("|---|---|---|---|---|---|---|---|\n");
        for (Measurement row : results.figures()) {
            text.append("| ").append(row.figure())
                    .append(" | ").append(cell(row.label()))
                    .append(" | ").append(cell(row.s3()))
                    .append(" | ").append(value(row))
                    .append(" | ").append(baseline(row))
                    .append(" | ").append(row.ratio() == null ? "–" : number(row.ratio()))
                    .append(" | ").append(cell(row.goal()))
                    .append(" | ").append(met(row.met()))
                    .append(" |\n");
        }
        return text.toString();
    }

    private static String value(Measurement row) {
        if (!row.measured()) {
            return "not measured" + (row.detail() == null ? "" : ": " + cell(row.detail()));
        }
        String value = number(row.value()) + " " + row.unit();
        return row.detail() == null || row.detail().isBlank() ? value : value + " (" + cell(row.detail()) + ")";
    }

    private static String baseline(Measurement row) {
        if (row.baseline() == null) {
            return "–";
        }
        String unit = row.unit() == null ? "" : " " + row.unit();
        return number(row.baseline()) + unit + (row.baselineName() == null ? "" : " (" + cell(row.baselineName()) + ")");
    }

    private static String met(Boolean met) {
        if (met == null) {
            return "–";
        }
        return met ? "yes" : "no";
    }

    /** Three significant digits at most, never scientific notation. */
    static String number(double value) {
        double magnitude = Math.abs(value);
        if (magnitude >= 100 || value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (magnitude >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String cell(String text) {
        return text == null ? "" : text.replace("|", "\\|").replace("\n", " ");
    }
}
