package io.shardflow.stack;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.Node;

/**
 * What the brokers store, per topic: the sum of every partition's log size over every broker and log
 * directory (replicas included), as {@code describeLogDirs} reports it. Two readings around a run give
 * the bytes the run made the brokers write, internal topics (Streams changelogs, transaction and
 * offset logs) included; divided by the tensor bytes published, that is the "broker bytes per tensor
 * byte" figure of docs/ARCHITECTURE.md § 1. Exact while no segment is deleted or compacted during
 * the run, which holds for a local stack's short runs (7-day retention, 1 GiB segments).
 */
public final class BrokerBytes {

    private BrokerBytes() {
    }

    /** Bytes in the brokers' logs, by topic name. */
    public static Map<String, Long> byTopic(Admin admin, Duration timeout) {
        try {
            DescribeClusterResult cluster = admin.describeCluster();
            Collection<Integer> brokers = cluster.nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).stream().map(Node::id).toList();
            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(brokers).allDescriptions()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            Map<String, Long> bytes = new TreeMap<>();
            dirs.values().forEach(byDir -> byDir.values().forEach(dir -> dir.replicaInfos()
                    .forEach((partition, replica) -> bytes.merge(partition.topic(), replica.size(), Long::sum))));
            return bytes;
        } catch (ExecutionException | TimeoutException e) {
            throw new StackException("cannot describe the brokers' log directories: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StackException("interrupted while describing log directories", e);
        }
    }

    /** Bytes written between two readings, by topic; topics that did not grow are left out. */
    public static Map<String, Long> written(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> written = new TreeMap<>();
        after.forEach((topic, size) -> {
            long grown = size - before.getOrDefault(topic, 0L);
            if (grown > 0) {
                written.put(topic, grown);
            }
        });
        return written;
    }

    /** The sum of a reading (or of {@link #written}). */
    public static long total(Map<String, Long> bytes) {
        return bytes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Broker bytes written per tensor byte published: 1.0 means each tensor byte was stored once and nothing else. */
    public static double perTensorByte(Map<String, Long> written, long tensorBytesPublished) {
        return (double) total(written) / tensorBytesPublished;
    }

    /** A reading without the topics a measurement must not count (e.g. a raw baseline's own topic). */
    public static Map<String, Long> without(Map<String, Long> bytes, Collection<String> topics) {
        Map<String, Long> kept = new HashMap<>(bytes);
        topics.forEach(kept::remove);
        return new TreeMap<>(kept);
    }
}
