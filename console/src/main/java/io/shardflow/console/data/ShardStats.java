package io.shardflow.console.data;

import io.shardflow.console.render.TensorValues;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Statistics of one shard file, or of a whole snapshot once merged: samples, produce-time range,
 * samples per label value and per device, and per tensor {@link TensorStats}. A shard's statistics
 * are computed once from its file and kept by its SHA-256 ({@link StatsStore}): a shard never changes,
 * so a snapshot's statistics are the merge of its shards' and a new snapshot only adds the new
 * shards' work. Histograms keep at most {@value #MAX_KEYS} values; the rest are counted as truncated.
 */
public record ShardStats(int formatVersion, long samples, long firstProducedAt, long lastProducedAt,
                         Map<String, Long> labels, long labelsOther, Map<String, Long> devices, long devicesOther,
                         Map<String, TensorStats> tensors) {

    public static final int FORMAT_VERSION = 1;
    static final int MAX_KEYS = 1000;

    public ShardStats {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        devices = devices == null ? Map.of() : Map.copyOf(devices);
        tensors = tensors == null ? Map.of() : Map.copyOf(tensors);
    }

    public static ShardStats empty() {
        return new ShardStats(FORMAT_VERSION, 0, Long.MAX_VALUE, Long.MIN_VALUE, Map.of(), 0, Map.of(), 0, Map.of());
    }

    /** Reads every row once. */
    public static ShardStats of(DatasetSpec spec, ShardContents contents) {
        Map<String, Long> labels = new HashMap<>();
        Map<String, Long> devices = new HashMap<>();
        Map<String, TensorAccumulator> tensors = new LinkedHashMap<>();
        spec.tensors().forEach(t -> tensors.put(t.name(), new TensorAccumulator(t)));
        TensorSpec label = spec.labelTensor() == null ? null : spec.tensor(spec.labelTensor()).orElse(null);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (SampleRow row : contents.rows()) {
            first = Math.min(first, row.producedAtMillis());
            last = Math.max(last, row.producedAtMillis());
            devices.merge(row.deviceId(), 1L, Long::sum);
            if (label != null && row.tensors().containsKey(label.name())) {
                labels.merge(TensorValues.label(label.dtype(), row.tensors().get(label.name()), label.isScalar()), 1L, Long::sum);
            }
            tensors.forEach((name, acc) -> {
                byte[] bytes = row.tensors().get(name);
                if (bytes != null) {
                    acc.add(bytes, row.shapes().get(name));
                }
            });
        }
        Map<String, TensorStats> stats = new TreeMap<>();
        tensors.forEach((name, acc) -> stats.put(name, acc.result()));
        Capped l = Capped.of(labels);
        Capped d = Capped.of(devices);
        return new ShardStats(FORMAT_VERSION, contents.rows().size(), first, last, l.kept, l.other, d.kept, d.other, stats);
    }

    /** This and {@code other} together, as if their rows were one shard's. */
    public ShardStats plus(ShardStats other) {
        Capped l = Capped.of(sum(labels, other.labels));
        Capped d = Capped.of(sum(devices, other.devices));
        Map<String, TensorStats> merged = new TreeMap<>(tensors);
        other.tensors.forEach((name, t) -> merged.merge(name, t, TensorStats::plus));
        return new ShardStats(FORMAT_VERSION, samples + other.samples, Math.min(firstProducedAt, other.firstProducedAt),
                Math.max(lastProducedAt, other.lastProducedAt), l.kept, labelsOther + other.labelsOther + l.other,
                d.kept, devicesOther + other.devicesOther + d.other, merged);
    }

    private static Map<String, Long> sum(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> out = new HashMap<>(a);
        b.forEach((k, v) -> out.merge(k, v, Long::sum));
        return out;
    }

    /** A histogram cut to its {@value #MAX_KEYS} most frequent keys (ties by key), the rest summed. */
    private record Capped(Map<String, Long> kept, long other) {
        static Capped of(Map<String, Long> counts) {
            if (counts.size() <= MAX_KEYS) {
                return new Capped(counts, 0);
            }
            List<Map.Entry<String, Long>> sorted = counts.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                    .toList();
            Map<String, Long> kept = sorted.subList(0, MAX_KEYS).stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            long other = sorted.subList(MAX_KEYS, sorted.size()).stream().mapToLong(Map.Entry::getValue).sum();
            return new Capped(kept, other);
        }
    }

    /** Running statistics of one tensor over rows. */
    private static final class TensorAccumulator {
        private final TensorSpec spec;
        private final boolean numeric;
        private long rows;
        private long values;
        private Double min;
        private Double max;
        private double sum;
        private long nonFinite;
        private long empty;
        private final Set<String> shapes = new TreeSet<>();
        private boolean shapesTruncated;

        TensorAccumulator(TensorSpec spec) {
            this.spec = spec;
            this.numeric = TensorValues.numeric(spec.dtype());
        }

        void add(byte[] row, List<Integer> rowShape) {
            rows++;
            if (row.length == 0) {
                empty++;
            }
            String shape = spec.dtype().variableLength() ? row.length + " bytes"
                    : (rowShape != null ? rowShape : spec.shape()).stream().map(String::valueOf).collect(Collectors.joining("x"));
            if (shapes.size() < TensorStats.MAX_SHAPES || shapes.contains(shape)) {
                shapes.add(shape.isEmpty() ? "scalar" : shape);
            } else {
                shapesTruncated = true;
            }
            if (!numeric) {
                return;
            }
            int n = TensorValues.count(spec.dtype(), row);
            values += n;
            for (int i = 0; i < n; i++) {
                double v = TensorValues.at(spec.dtype(), row, i);
                if (!Double.isFinite(v)) {
                    nonFinite++;
                    continue;
                }
                min = min == null ? v : Math.min(min, v);
                max = max == null ? v : Math.max(max, v);
                sum += v;
            }
        }

        TensorStats result() {
            // string and bytes tensors have only lengths: their "values" are rows
            return new TensorStats(spec.dtype().numpyName(), rows, numeric ? values : rows, min, max, sum, nonFinite,
                    empty, shapes, shapesTruncated);
        }
    }
}
