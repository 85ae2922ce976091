package io.shardflow.console.data;

import io.shardflow.console.render.TensorValues;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.util.Optional;

/**
 * Which samples the grid shows: an exact label value (as the label histogram prints it), an exact
 * device id, and a produce-time range (epoch ms, inclusive). Null parts match everything.
 */
public record SampleFilter(String label, String device, Long from, Long to) {

    public static final SampleFilter NONE = new SampleFilter(null, null, null, null);

    public SampleFilter {
        label = blankToNull(label);
        device = blankToNull(device);
    }

    public boolean isEmpty() {
        return label == null && device == null && from == null && to == null;
    }

    /** False when the log alone shows the shard holds no match (its produce-time range misses the filter's). */
    public boolean mayMatch(ShardEntry shard) {
        return (from == null || shard.lastProducedAt() >= from) && (to == null || shard.firstProducedAt() <= to);
    }

    /** False when the shard's statistics show it holds no sample with the label or device asked for. */
    public boolean mayMatch(Optional<ShardStats> stats) {
        if (stats.isEmpty()) {
            return true;
        }
        ShardStats s = stats.get();
        boolean labelPossible = label == null || s.labels().containsKey(label) || s.labelsOther() > 0;
        boolean devicePossible = device == null || s.devices().containsKey(device) || s.devicesOther() > 0;
        return labelPossible && devicePossible;
    }

    public boolean matches(DatasetSpec spec, SampleRow row) {
        if (device != null && !device.equals(row.deviceId())) {
            return false;
        }
        if (from != null && row.producedAtMillis() < from || to != null && row.producedAtMillis() > to) {
            return false;
        }
        if (label == null) {
            return true;
        }
        TensorSpec tensor = spec.labelTensor() == null ? null : spec.tensor(spec.labelTensor()).orElse(null);
        byte[] bytes = tensor == null ? null : row.tensors().get(tensor.name());
        return bytes != null && label.equals(TensorValues.label(tensor.dtype(), bytes, tensor.isScalar()));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
