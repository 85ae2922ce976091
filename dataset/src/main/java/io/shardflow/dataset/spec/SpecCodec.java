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
            // A free dimension is null, so a reader that predates them refuses the spec instead of misreading it.
            tensor.shape().forEach(dim -> {
                if (dim == TensorSpec.FREE) {
                    shape.addNull();
                } else {
                    shape.add(dim);
                }
            });
            if (tensor.maxDims().stream().anyMatch(max -> max > 0)) {
                ArrayNode maxima = node.putArray("maxShape");
                tensor.maxDims().forEach(max -> {
                    if (max > 0) {
                        maxima.add(max);
                    } else {
                        maxima.addNull();
                    }
                });
            }
            if (tensor.encoding() != null) {
                node.put("encoding", tensor.encoding());
            }
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
        // Written only when set, so the spec.json of an uncompressed version keeps its bytes.
        if (!spec.compression().isNone()) {
            root.put("compression", spec.compression().toString());
        }
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
            List<Integer> shape = dims(node, "shape", TensorSpec.FREE);
            List<Integer> maxima = node.has("maxShape") ? dims(node, "maxShape", 0) : List.of();
            tensors.add(new TensorSpec(Json.text(node, "name", "tensor"),
                    DType.parse(Json.text(node, "dtype", "tensor")), shape, maxima,
                    Json.optionalText(node, "encoding", "tensor")));
        }
        String compression = Json.optionalText(root, "compression", WHAT);
        DatasetSpec spec = new DatasetSpec(
                Json.text(root, "name", WHAT),
                Json.text(root, "version", WHAT),
                tensors,
                Json.optionalText(root, "labelTensor", WHAT),
                Json.optionalText(root, "author", WHAT),
                Json.optionalText(root, "description", WHAT),
                Json.longValue(root, "maxSampleBytes", WHAT),
                Json.booleanValue(root, "allowNonFinite", WHAT),
                Json.instant(root, "createdAt", WHAT),
                compression == null ? Compression.NONE : Compression.parse(compression));
        // The stored fingerprint is informational for non-Java readers; if present it must agree,
        // otherwise the file was edited by hand or written by a writer with a different rule.
        String stored = Json.optionalText(root, "fingerprint", WHAT);
        if (stored != null && !stored.equals(spec.fingerprint())) {
            throw new IllegalArgumentException("dataset spec " + spec.name() + "/" + spec.version()
                    + " stores fingerprint " + stored + " but its tensors give " + spec.fingerprint());
        }
        return spec;
    }

    /** An array of integers where {@code null} stands for {@code nullAs}. */
    private static List<Integer> dims(JsonNode tensor, String field, int nullAs) {
        List<Integer> dims = new ArrayList<>();
        for (JsonNode dim : Json.array(tensor, field, "tensor")) {
            if (dim.isNull()) {
                dims.add(nullAs);
            } else if (dim.isInt() && dim.intValue() >= 0) {
                dims.add(dim.intValue());
            } else {
                throw new IllegalArgumentException("dataset spec has a dimension that is not a non-negative integer in " + field + ": " + dim);
            }
        }
        return dims;
    }
}
