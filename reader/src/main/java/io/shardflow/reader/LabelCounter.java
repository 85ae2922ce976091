package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.HalfFloats;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.ObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Samples per label value in a snapshot, read from the label tensor of every shard (each download
 * verified against its SHA-256). Scalar labels count by value ({@code "3"}, {@code "true"},
 * {@code "0.5"}); other shapes by the whole array ({@code "[0, 1]"}).
 */
public final class LabelCounter {

    private final ShardCache cache;
    private final ShardReader reader = new ShardReader();

    /** Shards go through a cache in {@code scratch} of at most {@code cacheBytes}. */
    public LabelCounter(ObjectStore store, Path scratch, long cacheBytes) {
        this.cache = new ShardCache(store, scratch, cacheBytes, false);
    }

    /** Counts by label value, numbers in numeric order; empty if the spec declares no label tensor. */
    public Optional<Map<String, Long>> count(DatasetSpec spec, Snapshot snapshot) {
        if (spec.labelTensor() == null) {
            return Optional.empty();
        }
        TensorSpec label = spec.tensor(spec.labelTensor()).orElseThrow();
        Map<String, Long> counts = new TreeMap<>(LABEL_ORDER);
        for (ShardEntry shard : snapshot.shards()) {
            for (byte[] row : reader.readTensor(cache.fetch(shard), label.name())) {
                counts.merge(text(label, row), 1L, Long::sum);
            }
        }
        return Optional.of(counts);
    }

    static String text(TensorSpec tensor, byte[] row) {
        if (tensor.dtype() == DType.STRING) {
            return new String(row, StandardCharsets.UTF_8);
        }
        if (tensor.dtype() == DType.BYTES) {
            return HexFormat.of().formatHex(row);
        }
        ByteBuffer b = ByteBuffer.wrap(row).order(ByteOrder.LITTLE_ENDIAN);
        int n = row.length / tensor.dtype().itemSize();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.append(", ");
            }
            out.append(value(tensor.dtype(), b));
        }
        return tensor.isScalar() ? out.toString() : "[" + out + "]";
    }

    private static String value(DType dtype, ByteBuffer b) {
        return switch (dtype) {
            case BOOL -> b.get() != 0 ? "true" : "false";
            case UINT8 -> Integer.toString(Byte.toUnsignedInt(b.get()));
            case INT8 -> Byte.toString(b.get());
            case INT16 -> Short.toString(b.getShort());
            case INT32 -> Integer.toString(b.getInt());
            case INT64 -> Long.toString(b.getLong());
            case FLOAT32 -> Float.toString(b.getFloat());
            case FLOAT64 -> Double.toString(b.getDouble());
            case UINT16 -> Integer.toString(Short.toUnsignedInt(b.getShort()));
            case UINT32 -> Integer.toUnsignedString(b.getInt());
            case UINT64 -> Long.toUnsignedString(b.getLong());
            case FLOAT16 -> Float.toString(HalfFloats.float16(b.getShort()));
            case BFLOAT16 -> Float.toString(HalfFloats.bfloat16(b.getShort()));
            case STRING, BYTES -> throw new IllegalStateException("whole-value dtype " + dtype + " has no elements");
        };
    }

    /** Numbers by value, then anything else by text. */
    private static final Comparator<String> LABEL_ORDER = (a, b) -> {
        Double x = number(a);
        Double y = number(b);
        if (x != null && y != null) {
            int c = Double.compare(x, y);
            return c != 0 ? c : a.compareTo(b);
        }
        if (x != null || y != null) {
            return x != null ? -1 : 1;
        }
        return a.compareTo(b);
    };

    private static Double number(String text) {
        try {
            return Double.valueOf(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
