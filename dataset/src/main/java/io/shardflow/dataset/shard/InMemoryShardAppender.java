package io.shardflow.dataset.shard;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The streaming writer's appender for a shard built in memory: as {@link DirectShardAppender} (row
 * count known, every tensor of fixed shape, each validated row straight into the file), but the file
 * is the library's in-memory one and {@link #finish} returns its bytes. Nothing is left on disk
 * either way; the per-row spill beside {@code scratch} is deleted on close.
 */
final class InMemoryShardAppender implements ShardImageAppender {

    /** The in-memory file grows by whole MiBs past the expected size. */
    private static final long GROWTH_UNIT = 1L << 20;

    private final DatasetSpec spec;
    private final ShardId id;
    private final Hdf5ShardFile file;
    private boolean finished;

    /** @param expectedBytes about the file's size (the rows' payload), so the library allocates once */
    InMemoryShardAppender(Path scratch, DatasetSpec spec, ShardId id, long rows, long expectedBytes) {
        this.spec = spec;
        this.id = id;
        long increment = Math.max(GROWTH_UNIT, (expectedBytes / GROWTH_UNIT + 1) * GROWTH_UNIT);
        this.file = new Hdf5ShardFile(scratch, spec, id, rows, Map.of(), increment);
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
    public ShardImage finish() {
        if (finished) {
            throw new IllegalStateException("shard " + id + " is already finished");
        }
        finished = true;
        file.finish();
        return file.image();
    }

    @Override
    public void close() {
        file.close();
    }
}
