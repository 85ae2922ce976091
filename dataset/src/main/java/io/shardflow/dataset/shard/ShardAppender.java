package io.shardflow.dataset.shard;

/**
 * One shard file being written row by row: {@link #append} each row in order, then {@link #finish}.
 * Closing an appender that was not finished abandons the shard and leaves no file at the target, so a
 * build that fails half way (a record gone, a check failed) never leaves a partial shard behind.
 */
public interface ShardAppender extends AutoCloseable {

    /**
     * Adds the next row.
     *
     * @throws IllegalArgumentException when the row does not fit the spec or cannot be stored unchanged
     */
    void append(SampleRow row);

    /** Writes the complete file at the target; no row may be appended afterwards. */
    void finish();

    /** Releases what the appender holds; without a {@link #finish} the target is not written. */
    @Override
    void close();
}
