package io.shardflow.dataset.shard;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes one shard file in the layout of {@link ShardFormat}. Implementations differ in how much of
 * the shard they hold in memory, never in what a reader sees.
 */
public interface ShardFileWriter {

    /**
     * Writes (replacing any file at {@code target}) the shard {@code id} holding {@code rows} in order.
     *
     * @throws IllegalArgumentException when a row does not fit the spec or cannot be stored unchanged
     */
    void write(Path target, DatasetSpec spec, ShardId id, List<SampleRow> rows);
}
