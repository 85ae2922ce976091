package io.shardflow.sink.commit;

import io.shardflow.dataset.layout.ShardId;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Decides how far each partition's committed offset may move. A partition's offset may never pass
 * the first record of a shard that is not yet durably in the commit log, because on a restart the
 * sink must read that shard again from its first sample. So the committable offset is the smallest
 * first offset among the partition's unfinished shards, or the next offset when none is open.
 */
public final class OffsetTracker {

    private final Map<TopicPartition, Map<ShardId, Long>> unfinished = new HashMap<>();
    private final Map<TopicPartition, Long> nextOffset = new HashMap<>();
    private final Map<TopicPartition, Long> lastCommitted = new HashMap<>();

    /** A shard's first record was read at {@code offset}; it holds the partition back until finished. */
    public void opened(TopicPartition partition, ShardId shard, long offset) {
        unfinished.computeIfAbsent(partition, p -> new HashMap<>()).putIfAbsent(shard, offset);
    }

    /** The shard is durably committed (or was found committed already). */
    public void finished(TopicPartition partition, ShardId shard) {
        Map<ShardId, Long> open = unfinished.get(partition);
        if (open != null) {
            open.remove(shard);
        }
    }

    /** Every record up to and including {@code offset} has been handled or is held by an unfinished shard. */
    public void consumed(TopicPartition partition, long offset) {
        nextOffset.merge(partition, offset + 1, Math::max);
    }

    /** Offsets that may be committed now and moved since the last call to {@link #markCommitted}. */
    public Map<TopicPartition, OffsetAndMetadata> committable() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        nextOffset.forEach((partition, next) -> {
            long safe = unfinished.getOrDefault(partition, Map.of()).values().stream().mapToLong(Long::longValue).min().orElse(next);
            Long previous = lastCommitted.get(partition);
            if (previous == null || safe > previous) {
                offsets.put(partition, new OffsetAndMetadata(safe));
            }
        });
        return offsets;
    }

    public void markCommitted(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> lastCommitted.merge(partition, offset.offset(), Math::max));
    }

    /** Forgets a partition this instance no longer owns. */
    public void forget(TopicPartition partition) {
        unfinished.remove(partition);
        nextOffset.remove(partition);
        lastCommitted.remove(partition);
    }
}
