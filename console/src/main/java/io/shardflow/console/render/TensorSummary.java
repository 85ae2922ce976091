package io.shardflow.console.render;

import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** A tensor value in words, for tensors with no picture: shape, min/max/mean, NaN count, and a small slice. */
public final class TensorSummary {

    private static final int SLICE = 64;

    private TensorSummary() {
    }

    public static String shape(TensorSpec tensor, List<Integer> rowShape) {
        if (tensor.dtype().variableLength()) {
            return tensor.dtype().numpyName();
        }
        List<Integer> shape = rowShape != null ? rowShape : tensor.shape();
        return shape.isEmpty() ? "scalar" : shape.stream().map(String::valueOf).collect(Collectors.joining("\u00d7"));
    }

    /** {@code min 0.01 max 0.98 mean 0.51} (finite values), plus the NaN/inf count when there are any. */
    public static String stats(TensorSpec tensor, byte[] row) {
        DType dtype = tensor.dtype();
        if (dtype.variableLength()) {
            return row.length + " bytes";
        }
        int n = TensorValues.count(dtype, row);
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        int bad = 0;
        for (int i = 0; i < n; i++) {
            double v = TensorValues.at(dtype, row, i);
            if (!Double.isFinite(v)) {
                bad++;
                continue;
            }
            min = Math.min(min, v);
            max = Math.max(max, v);
            sum += v;
        }
        if (n == bad) {
            return n == 0 ? "empty" : n + " non-finite values";
        }
        return String.format(Locale.ROOT, "min %.4g max %.4g mean %.4g", min, max, sum / (n - bad))
                + (bad > 0 ? ", " + bad + " NaN/inf" : "");
    }

    /** The first elements as text (strings decoded, bytes in hex), cut after {@value #SLICE} elements. */
    public static String slice(TensorSpec tensor, byte[] row) {
        DType dtype = tensor.dtype();
        if (dtype == DType.STRING) {
            String text = new String(row, StandardCharsets.UTF_8);
            return text.length() > 4096 ? text.substring(0, 4096) + "\u2026" : text;
        }
        if (dtype == DType.BYTES) {
            int shown = Math.min(row.length, 256);
            return HexFormat.ofDelimiter(" ").formatHex(row, 0, shown) + (row.length > shown ? " \u2026" : "");
        }
        int n = TensorValues.count(dtype, row);
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < Math.min(n, SLICE); i++) {
            out.append(i > 0 ? ", " : "").append(TensorValues.text(dtype, row, i));
        }
        return out.append(n > SLICE ? ", \u2026 (" + n + " values)]" : "]").toString();
    }
}
