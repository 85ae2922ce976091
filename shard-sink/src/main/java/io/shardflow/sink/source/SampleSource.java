package io.shardflow.sink.source;

import io.shardflow.schemas.Sample;
import java.util.Map;
import java.util.SortedSet;

/**
 * Where shard-sink reads the samples a shard's decisions name: the records of the samples topic
 * itself, so tensor bytes cross the broker once (docs/ARCHITECTURE.md § 1). Safe for concurrent use.
 */
public interface SampleSource {

    /**
     * Reads and decodes the records at {@code offsets} of partition {@code partition} of the samples topic.
     *
     * @return every requested offset mapped to its sample
     * @throws SourceRecordGoneException   when a named record is not in the topic (retention, a recreated
     *                                     topic): the shard cannot be built, ever
     * @throws SourceUnavailableException  when the broker or the registry does not answer: retried later
     */
    Map<Long, Sample> read(int partition, SortedSet<Long> offsets);
}
