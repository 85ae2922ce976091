package io.shardflow.sink.source;

import java.util.SortedSet;
import java.util.function.Consumer;

/**
 * Where shard-sink reads the samples a shard's decisions name: the records of the samples topic
 * itself, so tensor bytes cross the broker once (docs/ARCHITECTURE.md § 1). Safe for concurrent use.
 */
public interface SampleSource {

    /**
     * Reads and decodes the records at {@code offsets} of partition {@code partition} of the samples
     * topic, handing each to {@code each} as it arrives, in increasing offset order, and keeping none:
     * a shard is never whole in memory. When it throws, {@code each} may already have seen some records.
     *
     * @throws SourceRecordGoneException   when a named record is not in the topic (retention, a recreated
     *                                     topic): the shard cannot be built, ever
     * @throws SourceUnavailableException  when the broker or the registry does not answer: retried later
     */
    void read(int partition, SortedSet<Long> offsets, Consumer<SourcedSample> each);
}
