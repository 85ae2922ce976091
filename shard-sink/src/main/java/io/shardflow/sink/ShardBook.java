package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.spool.ShardSpool;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shards this sink instance holds: open shards being spooled, and sealed shards not yet in the
 * commit log (pending, in seal order). Dropping a partition's shards releases their local files
 * only; the partition's next owner replays them from its committed offsets. Owned by the poll loop,
 * not thread-safe.
 */
final class ShardBook {

    private static final Logger LOG = LoggerFactory.getLogger(ShardBook.class);

    private final Map<ShardId, OpenShard> open = new HashMap<>();
    private final List<PendingShard> pending = new ArrayList<>();

    /** The spool of an open shard; null if the shard is not open here. */
    ShardSpool spoolOf(ShardId shard) {
        OpenShard target = open.get(shard);
        return target == null ? null : target.spool();
    }

    void open(ShardId shard, TopicPartition partition, ShardSpool spool) {
        open.put(shard, new OpenShard(partition, spool));
    }

    /** Moves an open shard to the pending ones; false if this instance never opened it. */
    boolean seal(ShardId shard, ShardSealed seal) {
        OpenShard target = open.remove(shard);
        if (target == null) {
            return false;
        }
        pending.add(new PendingShard(shard, target.partition(), target.spool(), seal));
        return true;
    }

    /** The sealed shards not yet committed, in seal order; finishing removes them from this list. */
    List<PendingShard> pending() {
        return pending;
    }

    int openCount() {
        return open.size();
    }

    int pendingCount() {
        return pending.size();
    }

    Set<TopicPartition> partitionsWithOpenShards() {
        Set<TopicPartition> holding = new HashSet<>();
        open.values().forEach(o -> holding.add(o.partition()));
        return holding;
    }

    /** Forgets the open and pending shards of partitions this instance no longer owns. */
    void drop(Collection<TopicPartition> partitions) {
        List<ShardId> droppedOpen = open.entrySet().stream().filter(e -> partitions.contains(e.getValue().partition()))
                .map(Map.Entry::getKey).toList();
        for (ShardId shard : droppedOpen) {
            open.remove(shard).spool().close();
        }
        List<PendingShard> droppedPending = pending.stream().filter(p -> partitions.contains(p.partition)).toList();
        if (!droppedPending.isEmpty()) {
            LOG.info("dropping {} pending shards of partitions {}; their new owner replays them", droppedPending.size(), partitions);
        }
        pending.removeAll(droppedPending);
        droppedPending.forEach(PendingShard::release);
    }

    /** Forgets every shard: the instance is stopping. */
    void dropAll() {
        Set<TopicPartition> partitions = new LinkedHashSet<>(partitionsWithOpenShards());
        pending.forEach(p -> partitions.add(p.partition));
        drop(partitions);
    }

    private record OpenShard(TopicPartition partition, ShardSpool spool) {
    }
}
