package io.shardflow.dataset.shard;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One sample as it goes into (and comes out of) a shard.
 *
 * @param tensors    raw little-endian, C-order bytes per tensor name (arrays are not copied: do not
 *                   mutate them after handing them over)
 * @param attributes free-form metadata, stored per row as a JSON object
 * @param shapes     this row's own shape of each tensor with a free dimension (fixed tensors, and
 *                   string or bytes tensors, have none here)
 */
public record SampleRow(
        String sampleId,
        String deviceId,
        long producedAtMillis,
        Map<String, byte[]> tensors,
        Map<String, String> attributes,
        Map<String, List<Integer>> shapes) {

    public SampleRow {
        Objects.requireNonNull(sampleId, "sampleId");
        Objects.requireNonNull(deviceId, "deviceId");
        tensors = Map.copyOf(Objects.requireNonNull(tensors, "tensors"));
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
        shapes = shapes == null ? Map.of() : Map.copyOf(shapes);
    }

    /** A row whose tensors all have the spec's fixed shape. */
    public SampleRow(String sampleId, String deviceId, long producedAtMillis, Map<String, byte[]> tensors,
            Map<String, String> attributes) {
        this(sampleId, deviceId, producedAtMillis, tensors, attributes, Map.of());
    }

    /** Compares tensor contents, not array identity, so rows read back from a shard equal the rows written. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SampleRow other)) {
            return false;
        }
        if (producedAtMillis != other.producedAtMillis
                || !sampleId.equals(other.sampleId)
                || !deviceId.equals(other.deviceId)
                || !attributes.equals(other.attributes)
                || !shapes.equals(other.shapes)
                || !tensors.keySet().equals(other.tensors.keySet())) {
            return false;
        }
        for (Map.Entry<String, byte[]> e : tensors.entrySet()) {
            if (!Arrays.equals(e.getValue(), other.tensors.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(sampleId, deviceId, producedAtMillis, attributes);
        for (Map.Entry<String, byte[]> e : tensors.entrySet()) {
            h += e.getKey().hashCode() ^ Arrays.hashCode(e.getValue());
        }
        return h;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("SampleRow[sampleId=").append(sampleId)
                .append(", deviceId=").append(deviceId)
                .append(", producedAtMillis=").append(producedAtMillis)
                .append(", tensors={");
        tensors.forEach((name, bytes) -> sb.append(name).append(": ").append(bytes.length).append(" bytes, "));
        return sb.append("}, attributes=").append(attributes).append(", shapes=").append(shapes).append(']').toString();
    }
}
