package io.shardflow.cli.bench;

import java.util.ArrayList;
import java.util.List;

/** Percentiles and the empirical CDF of a set of measurements. */
public final class Percentiles {

    private Percentiles() {
    }

    /**
     * The {@code p}-th percentile (0..100) with linear interpolation between the closest ranks (the
     * same definition as numpy's default), so p50 of {1, 2, 3, 4} is 2.5.
     */
    public static double of(List<? extends Number> values, double p) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        if (p < 0 || p > 100) {
            throw new IllegalArgumentException("percentile must be within 0..100, got " + p);
        }
        double[] sorted = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        double rank = p / 100 * (sorted.length - 1);
        int below = (int) Math.floor(rank);
        int above = (int) Math.ceil(rank);
        return sorted[below] + (sorted[above] - sorted[below]) * (rank - below);
    }

    /** Points (value, fraction of values at or below it) of the empirical CDF, one per value, in order. */
    public static List<double[]> cdf(List<? extends Number> values) {
        double[] sorted = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        List<double[]> points = new ArrayList<>(sorted.length);
        for (int i = 0; i < sorted.length; i++) {
            points.add(new double[] {sorted[i], (i + 1) / (double) sorted.length});
        }
        return points;
    }
}
