package io.shardflow.reader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jhdf.HdfFile;
import io.jhdf.api.Attribute;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import io.jhdf.dataset.DatasetBase;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Single rows of an open shard file, read one slice per dataset (jHDF's slice reads): over a
 * paged channel only the metadata and the row's bytes (or the chunk holding them) are fetched.
 * Rows come out as {@link io.shardflow.dataset.shard.ShardReader} makes them, so a row read here
 * equals the same row of a whole-file read.
 */
final class ShardRowAt {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ShardEntry shard;
    private final Map<String, Node> tensors = new LinkedHashMap<>();
    private final Dataset sampleIds;
    private final Dataset deviceIds;
    private final Dataset producedAt;
    private final Dataset attributes;

    ShardRowAt(HdfFile file, ShardEntry shard) {
        this.shard = shard;
        long format = number(file, ShardFormat.ATTR_FORMAT);
        if (format != ShardFormat.FORMAT_VERSION) {
            throw problem("has shardflow_format " + format + ", this reader understands only " + ShardFormat.FORMAT_VERSION);
        }
        String id = String.valueOf(attribute(file, ShardFormat.ATTR_SHARD_ID).getData());
        long count = number(file, ShardFormat.ATTR_SAMPLE_COUNT);
        if (!id.equals(shard.shardId()) || count != shard.sampleCount()) {
            throw problem("holds " + id + " with " + count + " rows, the log says " + shard.shardId() + " with "
                    + shard.sampleCount());
        }
        if (!(file.getChild(ShardFormat.GROUP_TENSORS) instanceof Group group)) {
            throw problem("has no '" + ShardFormat.GROUP_TENSORS + "' group");
        }
        group.getChildren().forEach(tensors::put);
        sampleIds = dataset(file, ShardFormat.DS_SAMPLE_ID);
        deviceIds = dataset(file, ShardFormat.DS_DEVICE_ID);
        producedAt = dataset(file, ShardFormat.DS_PRODUCED_AT);
        attributes = dataset(file, ShardFormat.DS_ATTRIBUTES);
    }

    SampleRow row(int i) {
        Map<String, byte[]> values = new HashMap<>();
        Map<String, List<Integer>> shapes = new HashMap<>();
        for (Map.Entry<String, Node> e : tensors.entrySet()) {
            if (e.getValue() instanceof Dataset fixed) {
                values.put(e.getKey(), rows(fixed, i, 1));
                continue;
            }
            Group variable = (Group) e.getValue();
            ByteBuffer bounds = ByteBuffer.wrap(rows(dataset(variable, ShardFormat.DS_OFFSETS), i, 2))
                    .order(ByteOrder.LITTLE_ENDIAN);
            long from = bounds.getLong();
            long to = bounds.getLong();
            Dataset elements = dataset(variable, ShardFormat.DS_VALUES);
            values.put(e.getKey(), to > from ? rows(elements, from, Math.toIntExact(to - from)) : new byte[0]);
            if (variable.getChild(ShardFormat.DS_SHAPES) instanceof Dataset shapeRows) {
                ByteBuffer dims = ByteBuffer.wrap(rows(shapeRows, i, 1)).order(ByteOrder.LITTLE_ENDIAN);
                List<Integer> shape = new ArrayList<>();
                while (dims.hasRemaining()) {
                    shape.add(Math.toIntExact(dims.getLong()));
                }
                shapes.put(e.getKey(), shape);
            }
        }
        long produced = ByteBuffer.wrap(rows(producedAt, i, 1)).order(ByteOrder.LITTLE_ENDIAN).getLong();
        return new SampleRow(text(sampleIds, i), text(deviceIds, i), produced, values, parse(text(attributes, i)), shapes);
    }

    /** The stored bytes of {@code count} entries of the first dimension from {@code first}: little-endian, as written. */
    private static byte[] rows(Dataset dataset, long first, int count) {
        int[] dims = dataset.getDimensions();
        long[] offset = new long[dims.length];
        int[] size = dims.clone();
        offset[0] = first;
        size[0] = count;
        ByteBuffer buffer = ((DatasetBase) dataset).getSliceDataBuffer(offset, size);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** A fixed-length, NUL-padded UTF-8 string. */
    private static String text(Dataset strings, int i) {
        byte[] bytes = rows(strings, i, 1);
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    private Map<String, String> parse(String json) {
        Map<String, String> out = new LinkedHashMap<>();
        if (json.isEmpty()) {
            return out;
        }
        try {
            JsonNode node = JSON.readTree(json);
            node.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("shard " + shard.shardId() + " has row attributes that are not JSON", e);
        }
    }

    private Dataset dataset(Group group, String name) {
        if (!(group.getChild(name) instanceof Dataset dataset)) {
            throw problem("has no dataset '" + group.getPath() + name + "'");
        }
        return dataset;
    }

    private Attribute attribute(HdfFile file, String name) {
        Attribute attribute = file.getAttribute(name);
        if (attribute == null) {
            throw problem("has no root attribute '" + name + "'");
        }
        return attribute;
    }

    private long number(HdfFile file, String name) {
        if (!(attribute(file, name).getData() instanceof Number number)) {
            throw problem("root attribute '" + name + "' is not a number");
        }
        return number.longValue();
    }

    private IllegalStateException problem(String what) {
        return new IllegalStateException("shard " + shard.shardId() + " (" + shard.objectKey() + ") " + what);
    }
}
