package io.shardflow.dataset.shard;

import com.fasterxml.jackson.databind.JsonNode;
import io.jhdf.HdfFile;
import io.jhdf.api.Attribute;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import io.jhdf.dataset.DatasetBase;
import io.shardflow.dataset.internal.Json;
import io.shardflow.dataset.spec.DType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a shard file back into rows. The file is self-describing: tensor dtypes come from the
 * {@code shardflow_dtype} attribute and shapes from the datasets, so no spec is needed.
 */
public final class ShardReader {

    public ShardContents read(Path path) {
        try (HdfFile file = new HdfFile(path)) {
            long format = number(file, ShardFormat.ATTR_FORMAT, path);
            if (format != ShardFormat.FORMAT_VERSION) {
                throw new IllegalStateException("shard " + path + " has shardflow_format " + format
                        + ", this reader understands only " + ShardFormat.FORMAT_VERSION);
            }
            int n = Math.toIntExact(number(file, ShardFormat.ATTR_SAMPLE_COUNT, path));
            String[] sampleIds = strings(file, ShardFormat.DS_SAMPLE_ID, n, path);
            String[] deviceIds = strings(file, ShardFormat.DS_DEVICE_ID, n, path);
            String[] attributes = strings(file, ShardFormat.DS_ATTRIBUTES, n, path);
            long[] producedAt = (long[]) dataset(file, ShardFormat.DS_PRODUCED_AT, path).getDataFlat();
            requireLength(producedAt.length, n, ShardFormat.DS_PRODUCED_AT, path);

            Map<String, TensorRows> tensorRows = new HashMap<>();
            Node tensors = file.getChild(ShardFormat.GROUP_TENSORS);
            if (!(tensors instanceof Group group)) {
                throw new IllegalStateException("shard " + path + " has no '" + ShardFormat.GROUP_TENSORS + "' group");
            }
            for (Node node : group.getChildren().values()) {
                tensorRows.put(node.getName(), readTensorRows(node, n, path));
            }

            List<SampleRow> rows = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Map<String, byte[]> rowTensors = new HashMap<>();
                Map<String, List<Integer>> rowShapes = new HashMap<>();
                for (Map.Entry<String, TensorRows> e : tensorRows.entrySet()) {
                    rowTensors.put(e.getKey(), e.getValue().bytes()[i]);
                    if (e.getValue().shapes() != null) {
                        rowShapes.put(e.getKey(), e.getValue().shapes()[i]);
                    }
                }
                rows.add(new SampleRow(sampleIds[i], deviceIds[i], producedAt[i], rowTensors,
                        parseAttributes(attributes[i], path), rowShapes));
            }
            return new ShardContents(
                    text(file, ShardFormat.ATTR_DATASET, path),
                    text(file, ShardFormat.ATTR_VERSION, path),
                    text(file, ShardFormat.ATTR_SHARD_ID, path),
                    text(file, ShardFormat.ATTR_SPEC_FINGERPRINT, path),
                    rows);
        }
    }

    /**
     * The rows of one tensor only (little-endian bytes per row), without reading the other datasets:
     * what per-label counts need.
     */
    public byte[][] readTensor(Path path, String tensorName) {
        try (HdfFile file = new HdfFile(path)) {
            int n = Math.toIntExact(number(file, ShardFormat.ATTR_SAMPLE_COUNT, path));
            Node tensors = file.getChild(ShardFormat.GROUP_TENSORS);
            Node node = tensors instanceof Group group ? group.getChild(tensorName) : null;
            if (node == null) {
                throw new IllegalStateException("shard " + path + " has no tensor '" + tensorName + "'");
            }
            return readTensorRows(node, n, path).bytes();
        }
    }

    /** One tensor's rows: little-endian bytes per row, and per row its own shape for free-shape tensors. */
    private record TensorRows(byte[][] bytes, List<Integer>[] shapes) {
    }

    private static TensorRows readTensorRows(Node node, int n, Path path) {
        DType dtype = dtype(node, path);
        if (node instanceof Dataset dataset) {
            int[] dims = dataset.getDimensions();
            if (dims.length == 0 || dims[0] != n) {
                throw new IllegalStateException("shard " + path + " tensor '" + dataset.getName() + "' has "
                        + (dims.length == 0 ? "no rows" : dims[0] + " rows") + ", expected " + n);
            }
            long rowBytes = dataset.getSizeInBytes() / Math.max(1, n);
            long[] offsets = new long[n + 1];
            for (int i = 0; i <= n; i++) {
                offsets[i] = i * rowBytes / dtype.itemSize();
            }
            return new TensorRows(split(raw(dataset), offsets, dtype.itemSize()), null);
        }
        Group group = (Group) node;
        long[] offsets = (long[]) dataset(group, ShardFormat.DS_OFFSETS, path).getDataFlat();
        if (offsets.length != n + 1) {
            throw new IllegalStateException("shard " + path + " tensor '" + node.getName() + "' has " + offsets.length
                    + " offsets, expected " + (n + 1));
        }
        byte[][] bytes = split(raw(dataset(group, ShardFormat.DS_VALUES, path)), offsets, dtype.itemSize());
        Node shapesNode = group.getChild(ShardFormat.DS_SHAPES);
        if (!(shapesNode instanceof Dataset shapesDataset)) {
            return new TensorRows(bytes, null);
        }
        long[][] shapes = (long[][]) shapesDataset.getData();
        @SuppressWarnings("unchecked")
        List<Integer>[] rowShapes = new List[n];
        for (int i = 0; i < n; i++) {
            rowShapes[i] = Arrays.stream(shapes[i]).mapToObj(d -> Math.toIntExact(d)).toList();
        }
        return new TensorRows(bytes, rowShapes);
    }

    private static DType dtype(Node node, Path path) {
        Attribute dtypeAttr = node.getAttribute(ShardFormat.ATTR_DTYPE);
        if (dtypeAttr == null) {
            throw new IllegalStateException("shard " + path + " tensor '" + node.getName() + "' has no "
                    + ShardFormat.ATTR_DTYPE + " attribute");
        }
        return DType.parse(String.valueOf(dtypeAttr.getData()));
    }

    /**
     * The dataset's stored bytes after the filters, as written: every tensor is little-endian, so
     * they are the rows' bytes with no per-type conversion (and no 16-bit float type needed in Java).
     */
    private static byte[] raw(Dataset dataset) {
        if (dataset.getSize() == 0) {
            return new byte[0];
        }
        ByteBuffer buffer = ((DatasetBase) dataset).getDataBuffer();
        byte[] bytes = new byte[Math.toIntExact(dataset.getSizeInBytes())];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** Row {@code i} = elements {@code offsets[i]} to {@code offsets[i+1]}. */
    private static byte[][] split(byte[] values, long[] offsets, int itemSize) {
        byte[][] rows = new byte[offsets.length - 1][];
        for (int i = 0; i < rows.length; i++) {
            int from = Math.toIntExact(offsets[i] * itemSize);
            int to = Math.toIntExact(offsets[i + 1] * itemSize);
            if (from > to || to > values.length) {
                throw new IllegalStateException("row " + i + " spans elements " + offsets[i] + " to " + offsets[i + 1]
                        + " of " + values.length / itemSize);
            }
            rows[i] = Arrays.copyOfRange(values, from, to);
        }
        return rows;
    }

    private static Dataset dataset(Group group, String name, Path path) {
        Node node = group.getChild(name);
        if (!(node instanceof Dataset dataset)) {
            throw new IllegalStateException("shard " + path + " tensor '" + group.getName() + "' has no dataset '" + name + "'");
        }
        return dataset;
    }

    private static Dataset dataset(HdfFile file, String name, Path path) {
        Node node = file.getChild(name);
        if (!(node instanceof Dataset dataset)) {
            throw new IllegalStateException("shard " + path + " has no dataset '" + name + "'");
        }
        return dataset;
    }

    private static String[] strings(HdfFile file, String name, int n, Path path) {
        String[] values = (String[]) dataset(file, name, path).getDataFlat();
        requireLength(values.length, n, name, path);
        return values;
    }

    private static void requireLength(int actual, int expected, String name, Path path) {
        if (actual != expected) {
            throw new IllegalStateException("shard " + path + " dataset '" + name + "' has " + actual
                    + " rows but sample_count is " + expected);
        }
    }

    private static Attribute attribute(HdfFile file, String name, Path path) {
        Attribute attribute = file.getAttribute(name);
        if (attribute == null) {
            throw new IllegalStateException("shard " + path + " has no root attribute '" + name + "'");
        }
        return attribute;
    }

    private static long number(HdfFile file, String name, Path path) {
        Object data = attribute(file, name, path).getData();
        if (!(data instanceof Number number)) {
            throw new IllegalStateException("shard " + path + " root attribute '" + name + "' is not a number: " + data);
        }
        return number.longValue();
    }

    private static String text(HdfFile file, String name, Path path) {
        return String.valueOf(attribute(file, name, path).getData());
    }

    private static Map<String, String> parseAttributes(String json, Path path) {
        JsonNode node = Json.parseObject(json.getBytes(StandardCharsets.UTF_8),
                "row attributes in shard " + path);
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }
}
