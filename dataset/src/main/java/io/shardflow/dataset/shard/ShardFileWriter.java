package io.shardflow.dataset.shard;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

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
    default void write(Path target, DatasetSpec spec, ShardId id, List<SampleRow> rows) {
        try (ShardAppender appender = open(target, spec, id)) {
            rows.forEach(appender::append);
            appender.finish();
        }
    }

    /**
     * Starts the shard {@code id} at {@code target} (replaced when finished), to be given its rows one by
     * one. How much of the shard the appender holds in memory is the implementation's (see each).
     */
    ShardAppender open(Path target, DatasetSpec spec, ShardId id);

    /**
     * As {@link #open(Path, DatasetSpec, ShardId)} for a shard that will get exactly {@code rows} rows (the
     * sink knows it from the seal marker): a writer may then stream them into the file as they come
     * instead of gathering them first. The same rows give the same bytes either way; a shard that gets
     * another number of rows fails on finish.
     */
    default ShardAppender open(Path target, DatasetSpec spec, ShardId id, long rows) {
        return open(target, spec, id);
    }

    /**
     * Starts the shard {@code id} of exactly {@code rows} rows, about {@code expectedBytes} in all, built
     * in memory rather than at a path (the sink's small shards: no page-cache write and read back),
     * or empty where this writer cannot (then {@link #open(Path, DatasetSpec, ShardId, long)}).
     *
     * @param scratch a local path the writer may put small side files beside (never the shard itself)
     */
    default Optional<ShardImageAppender> openInMemory(Path scratch, DatasetSpec spec, ShardId id, long rows, long expectedBytes) {
        return Optional.empty();
    }
}
