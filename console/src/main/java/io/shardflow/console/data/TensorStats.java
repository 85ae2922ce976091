package io.shardflow.console.data;

import java.util.Set;
import java.util.TreeSet;

/**
 * What a tensor looks like over some rows: numeric range and mean (over finite values), how many
 * values were NaN or infinite, and for tensors whose size varies per row how many rows were empty
 * ("null") and which shapes or lengths occurred (ragged when more than one).
 *
 * @param min       smallest finite value, null when there was none (or the tensor is not numeric)
 * @param shapes    distinct row shapes ({@code 3x32x32}) or byte lengths of string/bytes rows, at most {@value #MAX_SHAPES}
 */
public record TensorStats(String dtype, long rows, long values, Double min, Double max, double sum, long nonFinite,
                          long emptyRows, Set<String> shapes, boolean shapesTruncated) {

    static final int MAX_SHAPES = 20;

    public TensorStats {
        shapes = shapes == null ? Set.of() : Set.copyOf(shapes);
    }

    /** Mean of the finite values, or null when there were none. */
    public Double mean() {
        long finite = values - nonFinite;
        return finite > 0 && min != null ? sum / finite : null;
    }

    public boolean ragged() {
        return shapes.size() > 1 || shapesTruncated;
    }

    TensorStats plus(TensorStats other) {
        Set<String> union = new TreeSet<>(shapes);
        union.addAll(other.shapes);
        boolean truncated = shapesTruncated || other.shapesTruncated || union.size() > MAX_SHAPES;
        Set<String> kept = union.stream().limit(MAX_SHAPES).collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        return new TensorStats(dtype, rows + other.rows, values + other.values, least(min, other.min), most(max, other.max),
                sum + other.sum, nonFinite + other.nonFinite, emptyRows + other.emptyRows, kept, truncated);
    }

    private static Double least(Double a, Double b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return Math.min(a, b);
    }

    private static Double most(Double a, Double b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return Math.max(a, b);
    }
}
