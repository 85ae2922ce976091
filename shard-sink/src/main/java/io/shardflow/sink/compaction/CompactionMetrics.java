package io.shardflow.sink.compaction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** What background compaction did: replace entries committed, small shards merged away, rounds that failed. */
public final class CompactionMetrics {

    final Counter compactions;
    final Counter shardsMerged;
    final Counter failures;

    public CompactionMetrics(MeterRegistry registry) {
        compactions = registry.counter("shardflow.sink.compactions");
        shardsMerged = registry.counter("shardflow.sink.compaction.shards.merged");
        failures = registry.counter("shardflow.sink.compaction.failures");
    }
}
