package io.shardflow.dataset.shard;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import java.nio.file.Path;
import java.util.List;

/**
 * The streaming writer's appender for a shard whose row count is known and whose tensors all have a
 * fixed shape: each row, once validated, goes straight into the file ({@link Hdf5ShardFile}), so the
 * tensor bytes are written once. Closing it unfinished deletes the partial file.
 */
final class DirectShardAppender implements ShardAppender {

    private final Path target;
    private final DatasetSpec spec;
    private final ShardId id;
    private final Hdf5ShardFile file;
    private boolean finished;
    private boolean complete;

    DirectShardAppender(Path target, DatasetSpec spec, ShardId id, long rows) {
        this.target = target;
        this.spec = spec;
        this.id = id;
        ShardWriter.prepareTarget(target);
        this.file = new Hdf5ShardFile(target, spec, id, rows, java.util.Map.of());
    }

    @Override
    public void append(SampleRow row) {
        if (finished) {
            throw new IllegalStateException("shard " + id + " is already finished");
        }
        ShardWriter.validate(spec, id, List.of(row));
        file.append(row);
    }

    @Override
    public void finish() {
        if (finished) {
            throw new IllegalStateException("shard " + id + " is already finished");
        }
        finished = true;
        file.finish();
        file.close();
        complete = true;
    }

    @Override
    public void close() {
        if (complete) {
            return;
        }
        try {
            file.close();
        } finally {
            StreamingShardWriter.deleteQuietly(target);
        }
    }
}
