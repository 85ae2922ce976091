package io.shardflow.sink;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The meters of shard-sink's poll loop and commits (the metrics reference lists them with these descriptions). */
final class SinkMetrics {

    final Counter shardsCommitted;
    final Counter samplesCommitted;
    final Counter bytesCommitted;
    final Counter shardsAlreadyCommitted;
    final Counter snapshots;
    final Timer sealToCommit;
    final AtomicInteger openShards = new AtomicInteger();
    final AtomicInteger pendingShards = new AtomicInteger();
    final AtomicInteger pausedPartitions = new AtomicInteger();
    final AtomicLong spoolBytes = new AtomicLong();
    final AtomicLong buildMemoryBytes = new AtomicLong();
    final Counter outages;
    final Counter storeErrors;

    SinkMetrics(MeterRegistry registry) {
        shardsCommitted = counter(registry, "shardflow.sink.shards.committed", "shards committed to a dataset version's log");
        samplesCommitted = counter(registry, "shardflow.sink.samples.committed", "samples in the committed shards");
        bytesCommitted = counter(registry, "shardflow.sink.bytes.committed", "bytes of the committed shard files");
        shardsAlreadyCommitted = counter(registry, "shardflow.sink.shards.replayed",
                "shards found already in the log (replays after a crash or a rebalance), not committed again");
        snapshots = counter(registry, "shardflow.sink.snapshots", "snapshots made by this sink's commits");
        // A histogram, so that dashboards and alerts can take quantiles over every instance.
        sealToCommit = Timer.builder("shardflow.sink.batch.duration")
                .description("time to read, build, upload and commit one batch of sealed shards")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(50))
                .maximumExpectedValue(Duration.ofMinutes(15))
                .register(registry);
        gauge(registry, "shardflow.sink.shards.open", openShards, "shards receiving samples, spooled to local disk");
        gauge(registry, "shardflow.sink.shards.pending", pendingShards, "sealed shards not yet in the commit log");
        gauge(registry, "shardflow.sink.partitions.paused", pausedPartitions,
                "assigned partitions paused by backpressure (spool over spool.max.bytes, or an outage)");
        gauge(registry, "shardflow.sink.spool.bytes", spoolBytes, "bytes of the local spool (open and pending shards)");
        gauge(registry, "shardflow.sink.build.memory.bytes", buildMemoryBytes,
                "native memory reserved by shards built in memory, at most build.memory.budget.bytes");
        outages = counter(registry, "shardflow.sink.store.outages",
                "rounds that failed on the object store, the broker or the registry and turned into backpressure");
        storeErrors = counter(registry, "shardflow.sink.store.errors",
                "object-store calls that failed, each then retried with backoff or given up after retry.attempts");
    }

    private static Counter counter(MeterRegistry registry, String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    private static void gauge(MeterRegistry registry, String name, Number value, String description) {
        Gauge.builder(name, value, Number::doubleValue).description(description).register(registry);
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
