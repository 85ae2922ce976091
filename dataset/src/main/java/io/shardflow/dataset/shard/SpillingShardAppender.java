package io.shardflow.dataset.shard;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import java.nio.file.Path;
import java.util.List;

/**
 * The streaming writer's appender. Each row is validated, measured ({@link ShardLayout.Measure}) and
 * spilled to a local file beside the target; on finish the file is written from the spill. The spill
 * exists because the fixed-length string widths and the variable tensors' offsets must be known
 * before the first chunk is written, and measuring them from the rows themselves keeps the file
 * byte-identical to one written from a list of the same rows (a replay gives the same digest,
 * docs/ARCHITECTURE.md invariant 2). The heap holds one row at a time, never the shard.
 */
final class SpillingShardAppender implements ShardAppender {

    private final StreamingShardWriter writer;
    private final Path target;
    private final DatasetSpec spec;
    private final ShardId id;
    private final ShardLayout.Measure measure;
    private final RowSpill spill;
    private boolean finished;

    SpillingShardAppender(StreamingShardWriter writer, Path target, DatasetSpec spec, ShardId id) {
        this.writer = writer;
        this.target = target;
        this.spec = spec;
        this.id = id;
        this.measure = new ShardLayout.Measure(spec);
        ShardWriter.prepareTarget(target);
        this.spill = new RowSpill(target.resolveSibling(target.getFileName() + ".rows"));
    }

    @Override
    public void append(SampleRow row) {
        if (finished) {
            throw new IllegalStateException("shard " + id + " is already finished");
        }
        ShardWriter.validate(spec, id, List.of(row));
        measure.add(row);
        spill.add(row);
    }

    @Override
    public void finish() {
        if (finished) {
            throw new IllegalStateException("shard " + id + " is already finished");
        }
        if (measure.rows() == 0) {
            // Same refusal as a write of an empty list.
            ShardWriter.validate(spec, id, List.of());
        }
        finished = true;
        try {
            writer.writeComplete(target, spec, id, measure.layout(), spill.rows());
        } finally {
            spill.close();
        }
    }

    @Override
    public void close() {
        spill.close();
    }
}
