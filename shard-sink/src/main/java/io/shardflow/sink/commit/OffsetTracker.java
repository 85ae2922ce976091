package io.shardflow.sink.commit;

import io.shardflow.dataset.layout.ShardId;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Decides how far each partition's committed offset may move. A partition's offset may never pass
 * the first record of a shard that is not yet durably in the commit log, because on a restart the
 * sink must read that shard again from its first sample. So the committable offset is the smallest
 * first offset among the partition's unfinished shards, or the next offset when none is open.
 * Thread-safe: the poll loop moves it while a background commit asks it for the positions to record.
 */
public final class OffsetTracker {

    private static final Comparator<TopicPartition> BY_NAME =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final Map<TopicPartition, Map<ShardId, Long>> unfinished = new HashMap<>();
    private final Map<TopicPartition, Long> nextOffset = new HashMap<>();
    private final Map<TopicPartition, Long> lastCommitted = new HashMap<>();

    /** A shard's first record was read at {@code offset}; it holds the partition back until finished. */
    public synchronized void opened(TopicPartition partition, ShardId shard, long offset) {
        unfinished.computeIfAbsent(partition, p -> new HashMap<>()).putIfAbsent(shard, offset);
    }

    /** The shard is durably committed (or was found committed already). */
    public synchronized void finished(TopicPartition partition, ShardId shard) {
        Map<ShardId, Long> open = unfinished.get(partition);
        if (open != null) {
            open.remove(shard);
        }
    }

    /** Every record up to and including {@code offset} has been handled or is held by an unfinished shard. */
    public synchronized void consumed(TopicPartition partition, long offset) {
        nextOffset.merge(partition, offset + 1, Math::max);
    }

    /** Offsets that may be committed now and moved since the last call to {@link #markCommitted}. */
    public synchronized Map<TopicPartition, OffsetAndMetadata> committable() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>(BY_NAME);
        nextOffset.forEach((partition, next) -> {
            long safe = safeOffset(partition, next, Set.of());
            Long previous = lastCommitted.get(partition);
            if (previous == null || safe > previous) {
                offsets.put(partition, new OffsetAndMetadata(safe));
            }
        });
        return offsets;
    }

    /**
     * Every partition's committable offset as it will be once {@code finishing} are durably committed,
     * whether or not it moved since the last consumer commit: the source positions a commit-log entry
     * records ("after this commit").
     */
    public synchronized Map<TopicPartition, Long> positionsAfter(Collection<ShardId> finishing) {
        Map<TopicPartition, Long> positions = new TreeMap<>(BY_NAME);
        nextOffset.forEach((partition, next) -> positions.put(partition, safeOffset(partition, next, finishing)));
        return positions;
    }

    private long safeOffset(TopicPartition partition, long next, Collection<ShardId> finishing) {
        return unfinished.getOrDefault(partition, Map.of()).entrySet().stream()
                .filter(e -> !finishing.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).min().orElse(next);
    }

    public synchronized void markCommitted(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> lastCommitted.merge(partition, offset.offset(), Math::max));
    }

    /** Forgets a partition this instance no longer owns. */
    public synchronized void forget(TopicPartition partition) {
        unfinished.remove(partition);
        nextOffset.remove(partition);
        lastCommitted.remove(partition);
    }
}
