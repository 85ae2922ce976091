package io.shardflow.sink.quarantine;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.quarantine.QuarantineLog;
import io.shardflow.dataset.quarantine.QuarantinedShard;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.dataset.retry.Retrier;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import io.shardflow.sink.source.SourceRecordGoneException;
import io.shardflow.sink.source.SourceUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets aside a sealed shard the sink cannot build, so that one shard of bad data does not stop the
 * sink or make it retry forever (docs/ARCHITECTURE.md, invariant 8). The record is written
 * create-only and durably before the caller may move offsets past the shard: a shard is either in
 * the commit log or in quarantine, never silently gone.
 */
public final class ShardQuarantine {

    private static final Logger LOG = LoggerFactory.getLogger(ShardQuarantine.class);
    private static final int MAX_DETAIL_CHARS = 4096;

    private final QuarantineLog log;
    private final Retrier retrier;
    private final Clock clock;
    private final String sinkId;
    private final QuarantineMetrics metrics;

    public ShardQuarantine(ObjectStore store, Retrier retrier, Clock clock, String sinkId, MeterRegistry meters) {
        this.log = new QuarantineLog(store);
        this.retrier = retrier;
        this.clock = clock;
        this.sinkId = sinkId;
        this.metrics = new QuarantineMetrics(meters);
    }

    /**
     * Whether a failure to build a shard is the shard's own fault. An object-store failure or a local
     * disk error says nothing about the shard, nor does a broker or registry that does not answer while
     * the shard's samples are read: those are retried like any outage, never quarantined.
     */
    public static boolean isShardAtFault(RuntimeException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ObjectStoreException || cause instanceof UncheckedIOException
                    || cause instanceof SourceUnavailableException) {
                return false;
            }
        }
        return true;
    }

    /**
     * Records the shard as quarantined; durable on return. Throws {@link ObjectStoreException} when the
     * store stays unreachable past the retrier, and then the shard stays pending like any other.
     */
    public void setAside(ShardId shard, ShardSealed seal, RuntimeException failure, Map<String, Long> sourceOffsets) {
        String detail = failure.getClass().getName() + ": " + failure.getMessage();
        if (detail.length() > MAX_DETAIL_CHARS) {
            detail = detail.substring(0, MAX_DETAIL_CHARS) + "...";
        }
        QuarantinedShard record = new QuarantinedShard(shard.toString(), DatasetLayout.shardKey(shard), QuarantinedShard.UNBUILDABLE,
                detail, seal.getSampleCount(), seal.getSpecFingerprint(), sourceOffsets, sinkId, clock.instant());
        retrier.call("quarantine " + shard, () -> log.record(record));
        metrics.quarantined.increment();
        if (failure instanceof SourceRecordGoneException) {
            // Counted apart: it means the samples topic's retention is shorter than the sink's lag (docs/ARCHITECTURE.md § 5).
            metrics.sourceGone.increment();
        }
        LOG.error("shard {} cannot be built and is quarantined at {}; moving past it: {}", shard,
                DatasetLayout.quarantineKey(shard), detail);
    }
}
