package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitContentionException;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.commit.OffsetTracker;
import io.shardflow.sink.flow.Backpressure;
import io.shardflow.sink.source.SourceUnavailableException;
import io.shardflow.sink.spool.ShardSpool;
import io.shardflow.sink.spool.SpoolDirectory;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard-sink poll loop. For each batch of records: spool the decisions of open shards (which
 * samples-topic records form which row); sealed shards go to a {@link BackgroundFinisher}, which reads
 * their samples, builds the HDF5 files and uploads them create-only in parallel, then appends one
 * commit per dataset version, off this thread; only once a commit is durable do the consumer offsets
 * the {@link OffsetTracker} allows move (docs/ARCHITECTURE.md § 4 Commit protocol).
 *
 * <p>Outages do not stop it. When the object store stays unreachable past the retrier's bounded
 * attempts, the sealed shards stay pending (their spools are on disk), every assigned partition is
 * paused and the loop keeps polling, so the instance stays in its group while it retries the
 * pending work with capped backoff ({@link Backpressure}); the first success resumes the
 * partitions. A broker that is briefly gone only delays offset commits, which are retried on the
 * next round. Nothing here needs an operator (docs/ARCHITECTURE.md § 5 Failure model).
 */
public final class SinkWorker implements Runnable, ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(SinkWorker.class);

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final Duration pollTimeout;
    private final SpoolDirectory spools;
    private final BackgroundFinisher finisher;
    private final ReplayCheck replays;
    private final Backpressure backpressure;
    private final PartitionPauser pauser;
    private final StoreOutage outage;
    private final OffsetCommitter offsetCommitter;
    private final SinkHook hook;
    private final SinkMetrics metrics;
    private final OffsetTracker offsets = new OffsetTracker();
    private final ShardBook shards = new ShardBook();
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Read by the /ready probe from another thread: partitions assigned and no object-store outage. */
    private volatile boolean ready;

    SinkWorker(Consumer<byte[], byte[]> consumer, String topic, Duration pollTimeout, SpoolDirectory spools,
               BackgroundFinisher finisher, ReplayCheck replays, Backpressure backpressure, SinkMetrics metrics, SinkHook hook) {
        this.consumer = consumer;
        this.topic = topic;
        this.pollTimeout = pollTimeout;
        this.spools = spools;
        this.finisher = finisher;
        this.replays = replays;
        this.backpressure = backpressure;
        this.pauser = new PartitionPauser(consumer, backpressure, metrics);
        this.outage = new StoreOutage(backpressure, metrics);
        this.offsetCommitter = new OffsetCommitter(consumer, offsets);
        this.hook = hook;
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
            finisher.awaitIdle();
            collectFinished();
            commitDurableOffsetsBeforeClose();
            shards.dropAll();
            consumer.close();
        }
    }

    /** One poll-process-commit round; visible for tests that drive the loop by hand. */
    void pollOnce() {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(pollTimeout)) {
            handle(record);
        }
        collectFinished();
        if (shards.pending().isEmpty() && !finisher.busy()) {
            outage.ended(); // its pending work went with revoked partitions
        } else if (!finisher.busy() && backpressure.retryDue()) {
            finisher.start(shards.pending(), offsets::positionsAfter);
            collectFinished(); // a round run inline has ended already
        }
        offsetCommitter.commit();
        pauser.apply(shards.partitionsWithOpenShards(), spools.bytes());
        ready = !consumer.assignment().isEmpty() && !backpressure.inOutage();
        metrics.openShards.set(shards.openCount());
        metrics.pendingShards.set(shards.pendingCount());
        metrics.spoolBytes.set(spools.bytes());
    }

    private void handle(ConsumerRecord<byte[], byte[]> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        ShardEvent event = ShardEventCodec.decode(record.value());
        ShardId shard = new ShardId(event.getDataset(), event.getVersion(), event.getLane(), event.getSequence());
        if (event.getBody() instanceof SampleAssigned assigned) {
            ShardSpool spool = shards.spoolOf(shard);
            if (spool == null) {
                if (assigned.getIndex() != 0 || replays.knownCommitted(shard)) {
                    // A replay of a shard that is already in the log: nothing to do.
                    offsets.consumed(partition, record.offset());
                    return;
                }
                spool = spools.create(partition.partition(), shard);
                shards.open(shard, partition, spool);
                offsets.opened(partition, shard, record.offset());
            }
            spool.append(record.value());
            hook.passed(SinkHook.Step.RECORD_SPOOLED);
        } else if (event.getBody() instanceof ShardSealed seal && !shards.seal(shard, seal) && !replays.knownCommitted(shard)) {
            LOG.warn("seal marker for shard {} whose samples this instance never saw; it is committed elsewhere or lost upstream", shard);
        }
        offsets.consumed(partition, record.offset());
    }

    /** Applies what background rounds achieved: committed groups release their offsets; a failed round backs off. */
    private void collectFinished() {
        finisher.collect(this::finished, (failure, took) -> {
            if (failure == null) {
                outage.ended();
                metrics.sealToCommit.record(took);
            } else if (failure instanceof ObjectStoreException || failure instanceof CommitContentionException
                    || failure instanceof SourceUnavailableException) {
                outage.failed(failure, shards.pendingCount(), consumer.assignment().size());
            } else {
                throw failure;
            }
        });
    }

    /** A group of shards is in the log: release their spools and let their partitions' offsets move. */
    private void finished(List<PendingShard> group, CommitResult result) {
        shards.pending().removeAll(group);
        for (PendingShard p : group) {
            p.release();
            offsets.finished(p.partition, p.shard);
        }
        metrics.committed(result);
        if (!result.committed().isEmpty()) {
            LOG.info("snapshot {}: committed {} shards ({} already present)", result.snapshotId(),
                    result.committed().size(), result.alreadyCommitted().size());
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
                offsetCommitter.commit();
            } catch (WakeupException e) {
                offsetCommitter.commit();
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
        finisher.awaitIdle(); // a round in flight may still commit these partitions' shards
        collectFinished();
        offsetCommitter.commit();
        forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        LOG.warn("partitions lost: {}", partitions);
        finisher.awaitIdle();
        collectFinished();
        forget(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        LOG.info("partitions assigned: {}", partitions);
        pauser.apply(shards.partitionsWithOpenShards(), spools.bytes()); // during an outage new partitions must not start flowing
    }

    private void forget(Collection<TopicPartition> partitions) {
        shards.drop(partitions);
        partitions.forEach(offsets::forget);
    }

    public void stop() {
        running.set(false);
        consumer.wakeup();
    }
}
