package io.shardflow.cli.bench;

/**
 * One row of the results: a figure measured for one case, beside the raw baseline measured in the
 * same run. Values are boxed so that a figure that could not be measured is written as JSON null,
 * never as a made-up number.
 *
 * @param figure   the figure's id, e.g. {@code P1}
 * @param label    the case, e.g. {@code 12 KB samples}
 * @param s3       the S3 server of the stack it ran on
 * @param value    the pipeline's figure, in {@code unit}; null when not measured
 * @param baseline the raw baseline in the same unit; null when the figure has none
 * @param ratio    how the figure compares with its baseline, as {@code ratioMeaning} says
 * @param goal     the goal as a sentence, e.g. {@code >= 0.6}
 * @param met      whether the goal holds; null when the goal is "reported" only or nothing was measured
 * @param detail   anything else worth reading beside the number (RSS, an OOM, why not measured)
 */
public record Measurement(String figure, String label, String s3, Double value, String unit, Double baseline,
                          String baselineName, Double ratio, String ratioMeaning, String goal, Boolean met, String detail) {

    /** A throughput or any higher-is-better figure: ratio = value / baseline. */
    public static Measurement againstBaseline(String figure, String label, String s3, double value, String unit, double baseline,
                                              String baselineName, String goal, double minimumRatio, String detail) {
        double ratio = baseline > 0 ? value / baseline : Double.NaN;
        return new Measurement(figure, label, s3, value, unit, baseline, baselineName, finite(ratio), "value / baseline", goal,
                Double.isFinite(ratio) ? ratio >= minimumRatio : null, detail);
    }

    /** A figure with its own goal test (costs, latencies), ratio still value / baseline. */
    public static Measurement withGoal(String figure, String label, String s3, double value, String unit, double baseline,
                                       String baselineName, String goal, Boolean met, String detail) {
        return new Measurement(figure, label, s3, value, unit, baseline, baselineName, finite(baseline > 0 ? value / baseline : Double.NaN),
                "value / baseline", goal, met, detail);
    }

    /** A figure this run could not measure, and why. */
    public static Measurement notMeasured(String figure, String label, String s3, String goal, String why) {
        return new Measurement(figure, label, s3, null, null, null, null, null, null, goal, null, why);
    }

    public boolean measured() {
        return value != null;
    }

    private static Double finite(double number) {
        return Double.isFinite(number) ? number : null;
    }
}
