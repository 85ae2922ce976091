package io.shardflow.sink;

import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The meters shard-sink exposes. */
final class SinkMetrics {

    final Counter shardsCommitted;
    final Counter samplesCommitted;
    final Counter bytesCommitted;
    final Counter shardsAlreadyCommitted;
    final Counter snapshots;
    final Timer sealToCommit;
    final AtomicInteger openShards;
    final AtomicInteger pendingShards;
    final AtomicInteger pausedPartitions;
    final AtomicLong spoolBytes;
    final Counter outages;

    SinkMetrics(MeterRegistry registry) {
        shardsCommitted = registry.counter("shardflow.sink.shards.committed");
        samplesCommitted = registry.counter("shardflow.sink.samples.committed");
        bytesCommitted = registry.counter("shardflow.sink.bytes.committed");
        shardsAlreadyCommitted = registry.counter("shardflow.sink.shards.replayed");
        snapshots = registry.counter("shardflow.sink.snapshots");
        sealToCommit = registry.timer("shardflow.sink.batch.duration");
        openShards = registry.gauge("shardflow.sink.shards.open", new AtomicInteger());
        pendingShards = registry.gauge("shardflow.sink.shards.pending", new AtomicInteger());
        pausedPartitions = registry.gauge("shardflow.sink.partitions.paused", new AtomicInteger());
        spoolBytes = registry.gauge("shardflow.sink.spool.bytes", new AtomicLong());
        outages = registry.counter("shardflow.sink.store.outages");
    }

    void committed(CommitResult result) {
        shardsAlreadyCommitted.increment(result.alreadyCommitted().size());
        if (!result.committed().isEmpty()) {
            snapshots.increment();
            for (ShardEntry entry : result.committed()) {
                shardsCommitted.increment();
                samplesCommitted.increment(entry.sampleCount());
                bytesCommitted.increment(entry.bytes());
            }
        }
    }
}
