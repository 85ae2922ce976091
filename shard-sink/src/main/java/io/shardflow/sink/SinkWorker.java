package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitContentionException;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.commit.OffsetTracker;
import io.shardflow.sink.commit.ShardCommitter;
import io.shardflow.sink.fault.CrashPoint;
import io.shardflow.sink.fault.CrashPoints;
import io.shardflow.sink.flow.Backpressure;
import io.shardflow.sink.spool.ShardSpool;
import io.shardflow.sink.spool.SpoolDirectory;
import io.shardflow.sink.write.ShardBuilder;
import io.shardflow.sink.write.ShardUploader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard-sink poll loop. For each batch of records: spool assignments of open shards; for each
 * seal marker build the HDF5 file and upload it create-only; append one commit per dataset version
 * for the batch; only then commit the consumer offsets the {@link OffsetTracker} allows.
 *
 * <p>Outages do not stop it. When the object store stays unreachable past the retrier's bounded
 * attempts, the sealed shards stay pending (their spools are on disk), every assigned partition is
 * paused and the loop keeps polling, so the instance stays in its group while it retries the
 * pending work with capped backoff ({@link Backpressure}); the first success resumes the
 * partitions. A broker that is briefly gone only delays offset commits, which are retried on the
 * next round. Nothing here needs an operator.
 */
public final class SinkWorker implements Runnable, ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(SinkWorker.class);

    /** After a failed replay check, how long the object store is not asked again for replay checks. */
    private static final long REPLAY_CHECK_QUIET_NANOS = Duration.ofSeconds(10).toNanos();

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final Duration pollTimeout;
    private final SpoolDirectory spools;
    private final ShardCommitter committer;
    private final ShardFinisher finisher;
    private final Backpressure backpressure;
    private final CrashPoints crashPoints;
    private final SinkMetrics metrics;
    private final OffsetTracker offsets = new OffsetTracker();
    private final Map<ShardId, OpenShard> open = new HashMap<>();
    /** Sealed shards not yet in the commit log, in seal order. */
    private final List<PendingShard> pending = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Read by the /ready probe from another thread: partitions assigned and no object-store outage. */
    private volatile boolean ready;
    private long replayChecksQuietUntil = System.nanoTime();

    SinkWorker(Consumer<byte[], byte[]> consumer, String topic, Duration pollTimeout, SpoolDirectory spools,
               ShardBuilder builder, ShardUploader uploader, ShardCommitter committer, SinkMetrics metrics) {
        this(consumer, topic, pollTimeout, spools, builder, uploader, committer, metrics,
                Backpressure.system(Duration.ofSeconds(1), Duration.ofSeconds(30), Long.MAX_VALUE), CrashPoints.NONE);
    }

    SinkWorker(Consumer<byte[], byte[]> consumer, String topic, Duration pollTimeout, SpoolDirectory spools,
               ShardBuilder builder, ShardUploader uploader, ShardCommitter committer, SinkMetrics metrics,
               Backpressure backpressure, CrashPoints crashPoints) {
        this.consumer = consumer;
        this.topic = topic;
        this.pollTimeout = pollTimeout;
        this.spools = spools;
        this.committer = committer;
        this.finisher = new ShardFinisher(builder, uploader, committer, crashPoints);
        this.backpressure = backpressure;
        this.crashPoints = crashPoints;
        this.metrics = metrics;
    }

    @Override
    public void run() {
        consumer.subscribe(List.of(topic), this);
        try {
            while (running.get()) {
                pollOnce();
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        } finally {
            ready = false;
            commitDurableOffsetsBeforeClose();
            dropOpenShards(List.copyOf(open.keySet()));
            dropPending(pending.stream().map(p -> p.partition).toList());
            consumer.close();
        }
    }

    /** One poll-process-commit round; visible for tests that drive the loop by hand. */
    void pollOnce() {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
        for (ConsumerRecord<byte[], byte[]> record : records) {
            handle(record);
        }
        if (pending.isEmpty()) {
            endOutage(); // its pending work went with revoked partitions
        } else if (backpressure.retryDue()) {
            finishPending();
        }
        commitOffsets();
        applyPauses();
        ready = !consumer.assignment().isEmpty() && !backpressure.inOutage();
        metrics.openShards.set(open.size());
        metrics.pendingShards.set(pending.size());
        metrics.spoolBytes.set(spools.bytes());
    }

    private void handle(ConsumerRecord<byte[], byte[]> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        ShardEvent event = ShardEventCodec.decode(record.value());
        ShardId shard = new ShardId(event.getDataset(), event.getVersion(), event.getLane(), event.getSequence());
        if (event.getBody() instanceof SampleAssigned assigned) {
            OpenShard target = open.get(shard);
            if (target == null) {
                if (assigned.getIndex() != 0 || knownCommitted(shard)) {
                    // A replay of a shard that is already in the log: nothing to do.
                    offsets.consumed(partition, record.offset());
                    return;
                }
                target = new OpenShard(partition, spools.create(partition.partition(), shard));
                open.put(shard, target);
                offsets.opened(partition, shard, record.offset());
            }
            target.spool.append(record.value());
            crashPoints.reach(CrashPoint.MID_SPOOL);
        } else if (event.getBody() instanceof ShardSealed seal) {
            OpenShard target = open.remove(shard);
            if (target != null) {
                pending.add(new PendingShard(shard, target.partition, target.spool, seal));
            } else if (!knownCommitted(shard)) {
                LOG.warn("seal marker for shard {} whose samples this instance never saw; it is committed elsewhere or lost upstream", shard);
            }
        }
        offsets.consumed(partition, record.offset());
    }

    /**
     * Whether the log is known to hold the shard, an optimisation only: a stale or unknown "no" is
     * safe because the commit recognises a replayed shard. So while the object store is failing the
     * answer is "no" without asking, rather than blocking the poll loop on retries for every shard.
     */
    private boolean knownCommitted(ShardId shard) {
        if (backpressure.inOutage() || System.nanoTime() - replayChecksQuietUntil < 0) {
            return false;
        }
        try {
            return committer.isCommitted(shard);
        } catch (ObjectStoreException e) {
            LOG.warn("cannot read the commit log to check whether shard {} is a replay; spooling it: {}", shard, e.getMessage());
            replayChecksQuietUntil = System.nanoTime() + REPLAY_CHECK_QUIET_NANOS;
            return false;
        }
    }

    /** Builds, uploads and commits the pending shards; on an object-store failure keeps them and backs off. */
    private void finishPending() {
        long started = System.nanoTime();
        try {
            finisher.finish(pending, this::sourceOffsets, this::finished);
            endOutage();
            metrics.sealToCommit.record(Duration.ofNanos(System.nanoTime() - started));
        } catch (ObjectStoreException | CommitContentionException e) {
            boolean starting = !backpressure.inOutage();
            Duration wait = backpressure.failed();
            if (starting) {
                metrics.outages.increment();
                LOG.warn("object store unavailable, backpressure on: {} sealed shards pending, {} partitions paused, "
                        + "retrying in {} ms: {}", pending.size(), consumer.assignment().size(), wait.toMillis(), e.getMessage());
            } else {
                LOG.warn("object store still unavailable (attempt {}): {} sealed shards pending, retrying in {} ms: {}",
                        backpressure.failures(), pending.size(), wait.toMillis(), e.getMessage());
            }
        }
    }

    private void endOutage() {
        Duration outage = backpressure.recovered();
        if (!outage.isZero()) {
            LOG.info("backpressure off after {} ms: pending shards are committed, resuming partitions", outage.toMillis());
        }
    }

    /** A group of shards is in the log: release their spools and let their partitions' offsets move. */
    private void finished(List<PendingShard> group, CommitResult result) {
        for (PendingShard p : group) {
            p.release();
            offsets.finished(p.partition, p.shard);
        }
        record(result);
    }

    /** Pauses and resumes partitions as {@link Backpressure} says; idempotent. */
    private void applyPauses() {
        Set<TopicPartition> assigned = consumer.assignment();
        if (assigned.isEmpty()) {
            return;
        }
        Set<TopicPartition> holding = new HashSet<>();
        open.values().forEach(o -> holding.add(o.partition));
        Set<TopicPartition> wanted = backpressure.toPause(assigned, holding, spools.bytes());
        Set<TopicPartition> paused = consumer.paused();
        Set<TopicPartition> pause = new HashSet<>(wanted);
        pause.removeAll(paused);
        Set<TopicPartition> resume = new HashSet<>(paused);
        resume.removeAll(wanted);
        if (!pause.isEmpty()) {
            consumer.pause(pause);
            LOG.info("paused {} ({})", pause, backpressure.inOutage() ? "object store outage"
                    : "spool holds " + spools.bytes() + " bytes, over its budget");
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
            LOG.info("resumed {}", resume);
        }
        metrics.pausedPartitions.set(wanted.size());
    }

    private void record(CommitResult result) {
        metrics.shardsAlreadyCommitted.increment(result.alreadyCommitted().size());
        if (!result.committed().isEmpty()) {
            metrics.snapshots.increment();
            for (ShardEntry entry : result.committed()) {
                metrics.shardsCommitted.increment();
                metrics.samplesCommitted.increment(entry.sampleCount());
                metrics.bytesCommitted.increment(entry.bytes());
            }
            LOG.info("snapshot {}: committed {} shards ({} already present)", result.snapshotId(),
                    result.committed().size(), result.alreadyCommitted().size());
        }
    }

    /**
     * The offsets recorded in the commit entry: where each owned partition stands once this group is
     * committed (every partition, not only those that moved since the last consumer commit).
     */
    private Map<String, Long> sourceOffsets(Set<ShardId> finishing) {
        Map<String, Long> positions = new LinkedHashMap<>();
        offsets.positionsAfter(finishing).forEach((tp, offset) -> positions.put(tp.toString(), offset));
        return positions;
    }

    private void commitOffsets() {
        Map<TopicPartition, OffsetAndMetadata> committable = offsets.committable();
        if (committable.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(committable);
            offsets.markCommitted(committable);
        } catch (CommitFailedException | RebalanceInProgressException e) {
            // We lost (or are losing) the partitions: possibly we were paused past the session timeout.
            // Whatever we committed to the log is idempotent; the new owner replays from the last offsets.
            LOG.warn("offset commit refused, partitions moved: {}", e.getMessage());
        } catch (RetriableException e) {
            // The broker is restarting or unreachable: the offsets stay committable and go with the next round.
            LOG.warn("offset commit failed, retrying on the next round: {}", e.toString());
        }
    }

    /**
     * On a stop, the offsets of shards that reached the log go to the broker before the consumer
     * leaves, so the next owner does not replay them. A wakeup meant for the poll may still be
     * pending and interrupt the first attempt; then it is made once more.
     */
    private void commitDurableOffsetsBeforeClose() {
        try {
            try {
                commitOffsets();
            } catch (WakeupException e) {
                commitOffsets();
            }
        } catch (RuntimeException e) {
            LOG.warn("final offset commit failed; the next owner replays from the previous one: {}", e.toString());
        }
    }

    /** Whether this instance owns partitions and is not held up by an object-store outage. */
    public boolean isReady() {
        return ready;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        LOG.info("partitions revoked: {}", partitions);
        commitOffsets();
        forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        LOG.warn("partitions lost: {}", partitions);
        forget(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        LOG.info("partitions assigned: {}", partitions);
        applyPauses(); // during an outage new partitions must not start flowing
    }

    private void forget(Collection<TopicPartition> partitions) {
        List<ShardId> dropped = open.entrySet().stream().filter(e -> partitions.contains(e.getValue().partition))
                .map(Map.Entry::getKey).toList();
        dropOpenShards(dropped);
        dropPending(partitions);
        partitions.forEach(offsets::forget);
    }

    /** Sealed shards of partitions this instance no longer owns: the new owner replays them from its offsets. */
    private void dropPending(Collection<TopicPartition> partitions) {
        List<PendingShard> dropped = pending.stream().filter(p -> partitions.contains(p.partition)).toList();
        if (!dropped.isEmpty()) {
            LOG.info("dropping {} pending shards of partitions {}; their new owner replays them", dropped.size(), partitions);
        }
        pending.removeAll(dropped);
        dropped.forEach(PendingShard::release);
    }

    private void dropOpenShards(List<ShardId> shards) {
        for (ShardId shard : shards) {
            OpenShard dropped = open.remove(shard);
            if (dropped != null) {
                dropped.spool.close();
            }
        }
    }

    public void stop() {
        running.set(false);
        consumer.wakeup();
    }

    private record OpenShard(TopicPartition partition, ShardSpool spool) {
    }
}
