package io.shardflow.dataset.shard;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the streaming writer must know before its first chunk: the row count, the widths of the
 * fixed-length string datasets and each variable tensor's offsets (and shapes). A few bytes per row,
 * gathered as the rows go by ({@link Measure}).
 */
record ShardLayout(long rows, StringWidths widths, Map<String, VariableTensor> variables) {

    static ShardLayout of(DatasetSpec spec, Iterable<SampleRow> rows) {
        Measure measure = new Measure(spec);
        rows.forEach(measure::add);
        return measure.layout();
    }

    /** Gathers the layout one validated row at a time. */
    static final class Measure {

        private final Map<String, VariableTensor.Growing> variables = new LinkedHashMap<>();
        private StringWidths widths = StringWidths.NARROWEST;
        private long rows;

        Measure(DatasetSpec spec) {
            for (TensorSpec tensor : spec.tensors()) {
                if (tensor.isVariable()) {
                    variables.put(tensor.name(), new VariableTensor.Growing(tensor));
                }
            }
        }

        void add(SampleRow row) {
            widths = widths.widen(row);
            variables.values().forEach(growing -> growing.add(row));
            rows++;
        }

        long rows() {
            return rows;
        }

        ShardLayout layout() {
            Map<String, VariableTensor> built = new LinkedHashMap<>();
            variables.forEach((name, growing) -> built.put(name, growing.build()));
            return new ShardLayout(rows, widths, built);
        }
    }
}
