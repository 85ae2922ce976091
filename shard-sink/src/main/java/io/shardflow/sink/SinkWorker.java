package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.commit.OffsetTracker;
import io.shardflow.sink.commit.ShardCommitter;
import io.shardflow.sink.spool.ShardSpool;
import io.shardflow.sink.spool.SpoolDirectory;
import io.shardflow.sink.write.BuiltShard;
import io.shardflow.sink.write.ShardBuilder;
import io.shardflow.sink.write.ShardUploader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
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
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard-sink poll loop. For each batch of records: spool assignments of open shards; for each
 * seal marker build the HDF5 file and upload it create-only; append one commit per dataset version
 * for the batch; only then commit the consumer offsets the {@link OffsetTracker} allows.
 */
public final class SinkWorker implements Runnable, ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(SinkWorker.class);

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final Duration pollTimeout;
    private final SpoolDirectory spools;
    private final ShardBuilder builder;
    private final ShardUploader uploader;
    private final ShardCommitter committer;
    private final SinkMetrics metrics;
    private final OffsetTracker offsets = new OffsetTracker();
    private final Map<ShardId, OpenShard> open = new HashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);

    SinkWorker(Consumer<byte[], byte[]> consumer, String topic, Duration pollTimeout, SpoolDirectory spools,
               ShardBuilder builder, ShardUploader uploader, ShardCommitter committer, SinkMetrics metrics) {
        this.consumer = consumer;
        this.topic = topic;
        this.pollTimeout = pollTimeout;
        this.spools = spools;
        this.builder = builder;
        this.uploader = uploader;
        this.committer = committer;
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
            dropOpenShards(List.copyOf(open.keySet()));
            consumer.close();
        }
    }

    /** One poll-process-commit round; visible for tests that drive the loop by hand. */
    void pollOnce() {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
        List<Sealed> sealed = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            handle(record, sealed);
        }
        if (!sealed.isEmpty()) {
            finish(sealed);
        }
        commitOffsets();
        metrics.openShards.set(open.size());
    }

    private void handle(ConsumerRecord<byte[], byte[]> record, List<Sealed> sealed) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        ShardEvent event = ShardEventCodec.decode(record.value());
        ShardId shard = new ShardId(event.getDataset(), event.getVersion(), event.getLane(), event.getSequence());
        if (event.getBody() instanceof SampleAssigned assigned) {
            OpenShard target = open.get(shard);
            if (target == null) {
                if (assigned.getIndex() != 0 || committer.isCommitted(shard)) {
                    // A replay of a shard that is already in the log: nothing to do.
                    offsets.consumed(partition, record.offset());
                    return;
                }
                target = new OpenShard(partition, spools.create(partition.partition(), shard));
                open.put(shard, target);
                offsets.opened(partition, shard, record.offset());
            }
            target.spool.append(record.value());
        } else if (event.getBody() instanceof ShardSealed seal) {
            OpenShard target = open.remove(shard);
            if (target != null) {
                sealed.add(new Sealed(shard, target, seal));
            } else if (!committer.isCommitted(shard)) {
                LOG.warn("seal marker for shard {} whose samples this instance never saw; it is committed elsewhere or lost upstream", shard);
            }
        }
        offsets.consumed(partition, record.offset());
    }

    /** Builds and uploads every sealed shard of the batch, then commits them per dataset version. */
    private void finish(List<Sealed> sealed) {
        long started = System.nanoTime();
        Map<String, List<Sealed>> byVersion = new LinkedHashMap<>();
        for (Sealed s : sealed) {
            byVersion.computeIfAbsent(s.shard.dataset() + "/" + s.shard.version(), k -> new ArrayList<>()).add(s);
        }
        for (List<Sealed> group : byVersion.values()) {
            List<ShardEntry> entries = new ArrayList<>();
            List<BuiltShard> built = new ArrayList<>();
            ShardId first = group.get(0).shard;
            for (Sealed s : group) {
                BuiltShard shard = builder.build(s.shard, committer.spec(s.shard.dataset(), s.shard.version()),
                        s.target.spool.readAll(), s.seal);
                built.add(shard);
                entries.add(uploader.upload(shard));
            }
            CommitResult result = committer.commit(first.dataset(), first.version(), entries, sourceOffsets(group));
            for (Sealed s : group) {
                s.target.spool.close();
                offsets.finished(s.target.partition, s.shard);
            }
            built.forEach(b -> deleteQuietly(b));
            record(result);
        }
        metrics.sealToCommit.record(Duration.ofNanos(System.nanoTime() - started));
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
    private Map<String, Long> sourceOffsets(List<Sealed> group) {
        Set<ShardId> finishing = new HashSet<>();
        group.forEach(s -> finishing.add(s.shard));
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
        }
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
    }

    private void forget(Collection<TopicPartition> partitions) {
        List<ShardId> dropped = open.entrySet().stream().filter(e -> partitions.contains(e.getValue().partition))
                .map(Map.Entry::getKey).toList();
        dropOpenShards(dropped);
        partitions.forEach(offsets::forget);
    }

    private void dropOpenShards(List<ShardId> shards) {
        for (ShardId shard : shards) {
            OpenShard dropped = open.remove(shard);
            if (dropped != null) {
                dropped.spool.close();
            }
        }
    }

    private static void deleteQuietly(BuiltShard shard) {
        try {
            Files.deleteIfExists(shard.file());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void stop() {
        running.set(false);
        consumer.wakeup();
    }

    private record OpenShard(TopicPartition partition, ShardSpool spool) {
    }

    private record Sealed(ShardId shard, OpenShard target, ShardSealed seal) {
    }
}
