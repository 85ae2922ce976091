package io.shardflow.dataset.shard;

/**
 * One shard being built in memory row by row: {@link #append} each row in order, then
 * {@link #finish}, which hands over the finished file's bytes. Closing it unfinished abandons the
 * shard. The same rows give the same bytes as the writer's file on disk.
 */
public interface ShardImageAppender extends AutoCloseable {

    /**
     * Adds the next row.
     *
     * @throws IllegalArgumentException when the row does not fit the spec or cannot be stored unchanged
     */
    void append(SampleRow row);

    /** Completes the file and returns its bytes, which the caller then owns (and closes). */
    ShardImage finish();

    /** Releases what the appender holds (never the image {@link #finish} returned). */
    @Override
    void close();
}
