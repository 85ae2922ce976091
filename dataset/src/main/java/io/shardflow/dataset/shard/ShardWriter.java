package io.shardflow.dataset.shard;

import io.jhdf.HdfFile;
import io.jhdf.WritableHdfFile;
import io.jhdf.api.WritableDataset;
import io.jhdf.api.WritableGroup;
import io.shardflow.dataset.internal.Json;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one shard file in the layout described by {@link ShardFormat}.
 *
 * <p>The output is a pure function of (spec, id, rows): no clock, host name or random value goes
 * into the file, so writing the same rows again gives the same bytes and the same SHA-256. The
 * sink relies on that to recognise a replayed shard (docs/ARCHITECTURE.md, invariant 2). jHDF also writes its own
 * version, OS name and CPU architecture into the file, so byte identity holds between machines of
 * the same OS/architecture running the same jHDF version.
 *
 * <p>jHDF keeps the whole file in Java arrays until it is closed; shard size bounds memory.
 */
public final class ShardWriter implements ShardFileWriter {

    private static final Logger log = LoggerFactory.getLogger(ShardWriter.class);

    @Override
    public void write(Path target, DatasetSpec spec, ShardId id, List<SampleRow> rows) {
        if (!writableByJhdf(spec, rows)) {
            // jHDF has no 16-bit float type and writes no empty dataset; the C library writes the same layout (FORMAT.md).
            log.debug("Shard {} has a float16 tensor or an all-empty variable tensor, written through the HDF5 C library", id);
            new StreamingShardWriter().write(target, spec, id, rows);
            return;
        }
        validate(spec, id, rows);
        prepareTarget(target);
        long started = System.nanoTime();
        try (WritableHdfFile file = HdfFile.write(target)) {
            file.putAttribute(ShardFormat.ATTR_FORMAT, ShardFormat.FORMAT_VERSION);
            file.putAttribute(ShardFormat.ATTR_DATASET, id.dataset());
            file.putAttribute(ShardFormat.ATTR_VERSION, id.version());
            file.putAttribute(ShardFormat.ATTR_SHARD_ID, id.toString());
            file.putAttribute(ShardFormat.ATTR_SAMPLE_COUNT, (long) rows.size());
            file.putAttribute(ShardFormat.ATTR_SPEC_FINGERPRINT, spec.fingerprint());

            WritableGroup tensors = file.putGroup(ShardFormat.GROUP_TENSORS);
            for (TensorSpec tensor : spec.tensors()) {
                if (tensor.isVariable()) {
                    putVariable(tensors, tensor, rows, spec);
                    continue;
                }
                WritableDataset dataset = tensors.putDataset(tensor.name(), TensorArrays.toHdfArray(tensor, rows),
                        JhdfOptions.of(tensor.dtype(), tensor.shape(), rows.size(), spec.compression()));
                dataset.putAttribute(ShardFormat.ATTR_DTYPE, tensor.dtype().numpyName());
            }

            int n = rows.size();
            String[] sampleIds = new String[n];
            String[] deviceIds = new String[n];
            long[] producedAt = new long[n];
            String[] attributes = new String[n];
            for (int i = 0; i < n; i++) {
                SampleRow row = rows.get(i);
                sampleIds[i] = row.sampleId();
                deviceIds[i] = row.deviceId();
                producedAt[i] = row.producedAtMillis();
                attributes[i] = attributesJson(row);
            }
            file.putDataset(ShardFormat.DS_SAMPLE_ID, sampleIds);
            file.putDataset(ShardFormat.DS_DEVICE_ID, deviceIds);
            file.putDataset(ShardFormat.DS_PRODUCED_AT, producedAt);
            file.putDataset(ShardFormat.DS_ATTRIBUTES, attributes);
        }
        log.debug("Wrote shard {} with {} rows to {} in {} ms", id, rows.size(), target,
                (System.nanoTime() - started) / 1_000_000);
    }

    /** A string, bytes or free-shape tensor as the values + offsets (+ shapes) group of {@link VariableTensor}. */
    private static void putVariable(WritableGroup tensors, TensorSpec tensor, List<SampleRow> rows, DatasetSpec spec) {
        VariableTensor column = VariableTensor.of(tensor, rows);
        WritableGroup group = tensors.putGroup(tensor.name());
        group.putAttribute(ShardFormat.ATTR_DTYPE, tensor.dtype().numpyName());
        group.putAttribute(ShardFormat.ATTR_SHAPE, tensor.encoding() == null ? tensor.shapeText() : "");
        if (tensor.encoding() != null) {
            group.putAttribute(ShardFormat.ATTR_ENCODING, tensor.encoding());
        }
        group.putDataset(ShardFormat.DS_VALUES, TensorArrays.toFlatArray(column, rows),
                JhdfOptions.of(tensor.dtype(), List.of(), column.totalElements(), spec.compression()));
        group.putDataset(ShardFormat.DS_OFFSETS, column.offsets());
        if (column.shapes() != null) {
            group.putDataset(ShardFormat.DS_SHAPES, column.shapes());
        }
    }

    static boolean writableByJhdf(DatasetSpec spec, List<SampleRow> rows) {
        for (TensorSpec tensor : spec.tensors()) {
            if (!TensorArrays.writableByJhdf(tensor.dtype())) {
                return false;
            }
            if (tensor.isVariable() && rows.stream().allMatch(row -> lengthOf(row, tensor) == 0)) {
                return false;
            }
        }
        return true;
    }

    private static int lengthOf(SampleRow row, TensorSpec tensor) {
        byte[] bytes = row.tensors().get(tensor.name());
        return bytes == null ? -1 : bytes.length;
    }

    /** A row's attributes as stored in {@code /attributes}: one compact JSON object, keys sorted. */
    static String attributesJson(SampleRow row) {
        return Json.compact(new TreeMap<>(row.attributes()));
    }

    /** Deletes any file at {@code target} and creates its folder. */
    static void prepareTarget(Path target) {
        try {
            // jHDF opens the file without TRUNCATE_EXISTING: a shorter rewrite would keep the old tail.
            Files.deleteIfExists(target);
            Path parent = target.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare shard file " + target, e);
        }
    }

    /** The checks every writer makes before it creates a file: the rows fit the spec and store unchanged. */
    static void validate(DatasetSpec spec, ShardId id, List<SampleRow> rows) {
        if (!spec.name().equals(id.dataset()) || !spec.version().equals(id.version())) {
            throw new IllegalArgumentException("shard " + id + " does not belong to dataset "
                    + spec.name() + "/" + spec.version());
        }
        if (rows.isEmpty()) {
            // jHDF cannot size a fixed-length string dataset with no strings, and an empty shard has no use.
            throw new IllegalArgumentException("shard " + id + " has no rows");
        }
        for (SampleRow row : rows) {
            // HDF5 fixed-length strings are NUL-terminated: a NUL inside an id would silently cut it.
            requireStorable(id, row.sampleId(), "sampleId", row.sampleId(), true);
            requireStorable(id, row.sampleId(), "deviceId", row.deviceId(), true);
            for (Map.Entry<String, String> attribute : row.attributes().entrySet()) {
                // Attributes are JSON-escaped, so a NUL is fine there; a lone surrogate is not.
                requireStorable(id, row.sampleId(), "attribute key", attribute.getKey(), false);
                requireStorable(id, row.sampleId(), "attribute '" + attribute.getKey() + "'", attribute.getValue(), false);
            }
            for (TensorSpec tensor : spec.tensors()) {
                byte[] bytes = row.tensors().get(tensor.name());
                if (bytes == null) {
                    throw new IllegalArgumentException("shard " + id + ": sample '" + row.sampleId()
                            + "' has no tensor '" + tensor.name() + "'");
                }
                long expected = expectedBytes(id, row, tensor);
                if (bytes.length != expected) {
                    throw new IllegalArgumentException("shard " + id + ": sample '" + row.sampleId() + "' tensor '"
                            + tensor.name() + "' has " + bytes.length + " bytes, " + tensor.dtype().numpyName()
                            + " " + tensor.shapeText() + " needs " + expected);
                }
            }
            if (row.tensors().size() != spec.tensors().size()) {
                for (Map.Entry<String, byte[]> e : row.tensors().entrySet()) {
                    if (spec.tensor(e.getKey()).isEmpty()) {
                        throw new IllegalArgumentException("shard " + id + ": sample '" + row.sampleId()
                                + "' has tensor '" + e.getKey() + "' which is not in the spec");
                    }
                }
            }
        }
    }

    /** The byte length a row's tensor must have: fixed, from the row's own shape, or its own length (string, bytes). */
    private static long expectedBytes(ShardId id, SampleRow row, TensorSpec tensor) {
        byte[] bytes = row.tensors().get(tensor.name());
        if (tensor.dtype().variableLength()) {
            return bytes.length;
        }
        if (!tensor.hasFreeDimension()) {
            return tensor.byteLength();
        }
        List<Integer> shape = row.shapes().get(tensor.name());
        TensorSpec.ShapeProblem problem = shape == null
                ? new TensorSpec.ShapeProblem(false, "has no shape of its own")
                : tensor.checkShape(shape);
        if (problem != null) {
            throw new IllegalArgumentException("shard " + id + ": sample '" + row.sampleId() + "' tensor '"
                    + tensor.name() + "' " + problem.detail());
        }
        long elements = 1;
        for (int dim : shape) {
            elements *= dim;
        }
        return elements * tensor.dtype().itemSize();
    }

    /**
     * Refuses what the file would silently change: a NUL cuts an HDF5 fixed-length string short, and
     * a lone UTF-16 surrogate has no UTF-8 form and would be stored as '?'.
     */
    private static void requireStorable(ShardId id, String sampleId, String field, String value, boolean refuseNul) {
        if (refuseNul && value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("shard " + id + ": sample '" + sampleId + "' has a NUL character in "
                    + field + ", which HDF5 fixed-length strings cannot hold");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1));
            if (paired) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("shard " + id + ": sample '" + sampleId + "' has a lone UTF-16 surrogate in "
                        + field + ", which has no UTF-8 form");
            }
        }
    }
}
