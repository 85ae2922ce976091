package io.shardflow.console.ops;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.shardflow.console.ConsoleSettings.KafkaSettings;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.dataset.log.CommitEntry;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Why a shard was sealed (COUNT, BYTES or AGE) is said only by its seal marker on shard-assignments.
 * The commit entry that added the shard records where the sink's consumer stood after it
 * ({@code sourceOffsets}: {@code shard-assignments-P} to the next offset), so the marker is among the
 * records just before that offset: the lookup reads back a bounded window there, once per shard
 * (cached). When retention has removed the marker, the page says so.
 */
public final class SealReasons implements AutoCloseable {

    private static final int WINDOW = 5_000;

    private final Consumer<byte[], byte[]> consumer;
    private final DatasetAccess access;
    private final String topic;
    private final Cache<String, String> reasons = Caffeine.newBuilder().maximumSize(100_000).build();

    public SealReasons(KafkaSettings kafka, DatasetAccess access) {
        this(consumerFor(kafka), access, kafka.assignmentsTopic());
    }

    SealReasons(Consumer<byte[], byte[]> consumer, DatasetAccess access, String topic) {
        this.consumer = consumer;
        this.access = access;
        this.topic = topic;
    }

    private static Consumer<byte[], byte[]> consumerFor(KafkaSettings kafka) {
        Map<String, Object> settings = new HashMap<>(kafka.clientSettings());
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.CLIENT_ID_CONFIG, "shardflow-console-seals");
        settings.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
        return new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    public synchronized String reasonOf(DatasetAccess.VersionKey version, DatasetAccess.LocatedShard shard) {
        String cached = reasons.getIfPresent(shard.entry().shardId());
        if (cached != null) {
            return cached;
        }
        String found = lookUp(version, shard);
        if (!found.startsWith("unknown")) {
            reasons.put(shard.entry().shardId(), found);
        }
        return found;
    }

    private String lookUp(DatasetAccess.VersionKey version, DatasetAccess.LocatedShard shard) {
        if (shard.addedIn() < 1) {
            return "unknown (not found in the log's entries)";
        }
        CommitEntry entry = access.log(version).entry(shard.addedIn());
        if (entry.sourceOffsets().isEmpty()) {
            return "not sealed by ingest (written by '" + entry.committer() + "', a " + entry.kind().wireName() + " entry)";
        }
        return reasonBefore(entry.sourceOffsets(), shard.entry().shardId());
    }

    /** The seal reason of {@code shardId} from its marker before the given positions on the topic. */
    String reasonBefore(Map<String, Long> sourceOffsets, String shardId) {
        byte[] key = shardId.getBytes(StandardCharsets.UTF_8);
        boolean truncated = false;
        // The entry names every partition the sink was assigned, most of which hold other lanes'
        // markers (or nothing yet): each is searched, none decides alone.
        for (Map.Entry<String, Long> source : sourceOffsets.entrySet()) {
            String name = source.getKey();
            int dash = name.lastIndexOf('-');
            if (dash < 0 || !name.substring(0, dash).equals(topic)) {
                continue;
            }
            TopicPartition tp = new TopicPartition(topic, Integer.parseInt(name.substring(dash + 1)));
            long end = source.getValue();
            consumer.assign(List.of(tp));
            long begin = consumer.beginningOffsets(List.of(tp)).get(tp);
            if (end <= begin) {
                truncated |= begin > 0;
                continue;
            }
            consumer.seek(tp, Math.max(begin, end - WINDOW));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() < end && java.util.Arrays.equals(record.key(), key)) {
                        String reason = sealed(record.value());
                        if (reason != null) {
                            return reason;
                        }
                    }
                }
            }
        }
        return truncated ? "unknown (the seal marker is no longer on " + topic + ")"
                : "unknown (no seal marker found on " + topic + " before the commit's offsets)";
    }

    private static String sealed(byte[] value) {
        try {
            ShardEvent event = ShardEventCodec.decode(value);
            return event.getBody() instanceof ShardSealed seal ? seal.getReason().name() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public synchronized void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
