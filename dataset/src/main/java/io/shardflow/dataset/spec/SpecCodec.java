package io.shardflow.dataset.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code spec.json}: the stored form of a {@link DatasetSpec}.
 *
 * <p>Fields are written in a fixed order with 2-space indentation, so the same spec always gives
 * the same bytes. Unknown fields are ignored on read: a newer writer may add fields without
 * breaking older readers. A different {@code formatVersion} means an incompatible change and is
 * refused.
 */
public final class SpecCodec {

    public static final int FORMAT_VERSION = 1;
    private static final String WHAT = "dataset spec";

    public byte[] toJson(DatasetSpec spec) {
        ObjectNode root = Json.object();
        root.put("formatVersion", FORMAT_VERSION);
        root.put("name", spec.name());
        root.put("version", spec.version());
        root.put("fingerprint", spec.fingerprint());
        ArrayNode tensors = root.putArray("tensors");
        for (TensorSpec tensor : spec.tensors()) {
            ObjectNode node = tensors.addObject();
            node.put("name", tensor.name());
            node.put("dtype", tensor.dtype().numpyName());
            ArrayNode shape = node.putArray("shape");
            tensor.shape().forEach(shape::add);
        }
        if (spec.labelTensor() == null) {
            root.putNull("labelTensor");
        } else {
            root.put("labelTensor", spec.labelTensor());
        }
        root.put("author", spec.author());
        root.put("description", spec.description());
        root.put("maxSampleBytes", spec.maxSampleBytes());
        root.put("allowNonFinite", spec.allowNonFinite());
        root.put("createdAt", spec.createdAt().toString());
        return Json.pretty(root);
    }

    public DatasetSpec fromJson(byte[] json) {
        JsonNode root = Json.parseObject(json, WHAT);
        int formatVersion = Json.intValue(root, "formatVersion", WHAT);
        if (formatVersion != FORMAT_VERSION) {
            throw new IllegalArgumentException("dataset spec has formatVersion " + formatVersion
                    + " but this reader understands only " + FORMAT_VERSION + ": upgrade shardflow");
        }
        List<TensorSpec> tensors = new ArrayList<>();
        for (JsonNode node : Json.array(root, "tensors", WHAT)) {
            List<Integer> shape = new ArrayList<>();
            for (JsonNode dim : Json.array(node, "shape", "tensor")) {
                if (!dim.isInt()) {
                    throw new IllegalArgumentException("dataset spec has a non-integer dimension: " + dim);
                }
                shape.add(dim.intValue());
            }
            tensors.add(new TensorSpec(Json.text(node, "name", "tensor"),
                    DType.parse(Json.text(node, "dtype", "tensor")), shape));
        }
        DatasetSpec spec = new DatasetSpec(
                Json.text(root, "name", WHAT),
                Json.text(root, "version", WHAT),
                tensors,
                Json.optionalText(root, "labelTensor", WHAT),
                Json.optionalText(root, "author", WHAT),
                Json.optionalText(root, "description", WHAT),
                Json.longValue(root, "maxSampleBytes", WHAT),
                Json.booleanValue(root, "allowNonFinite", WHAT),
                Json.instant(root, "createdAt", WHAT));
        // The stored fingerprint is informational for non-Java readers; if present it must agree,
        // otherwise the file was edited by hand or written by a writer with a different rule.
        String stored = Json.optionalText(root, "fingerprint", WHAT);
        if (stored != null && !stored.equals(spec.fingerprint())) {
            throw new IllegalArgumentException("dataset spec " + spec.name() + "/" + spec.version()
                    + " stores fingerprint " + stored + " but its tensors give " + spec.fingerprint());
        }
        return spec;
    }
}
