package io.shardflow.sink.compaction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** What background compaction did: replace entries committed, small shards merged away, rounds that failed. */
public final class CompactionMetrics {

    final Counter compactions;
    final Counter shardsMerged;
    final Counter failures;

    public CompactionMetrics(MeterRegistry registry) {
        compactions = Counter.builder("shardflow.sink.compactions")
                .description("background compactions committed (replace entries in the commit log)").register(registry);
        shardsMerged = Counter.builder("shardflow.sink.compaction.shards.merged")
                .description("small shards merged away by background compaction").register(registry);
        failures = Counter.builder("shardflow.sink.compaction.failures")
                .description("background compaction rounds that failed (retried next interval)").register(registry);
    }
}
