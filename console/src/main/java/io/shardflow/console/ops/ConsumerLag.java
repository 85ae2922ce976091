package io.shardflow.console.ops;

import io.shardflow.console.ConsoleSettings.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumer lag per lane: for ingest-app, its committed offsets on {@code samples} (a lane is a partition
 * of samples); for shard-sink, its group's committed offsets on {@code shard-assignments}. Lag is the
 * partition's end offset minus the committed one; a partition without a commit counts from its start.
 */
public final class ConsumerLag implements AutoCloseable {

    /** One partition's lag for one group. */
    public record Lane(String group, String topic, int partition, long committed, long end, long lag) {
    }

    private final Admin admin;
    private final KafkaSettings kafka;

    public ConsumerLag(KafkaSettings kafka) {
        Map<String, Object> settings = new HashMap<>(kafka.clientSettings());
        settings.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        this.admin = Admin.create(settings);
        this.kafka = kafka;
    }

    public List<Lane> lanes() throws Exception {
        List<Lane> out = new ArrayList<>();
        out.addAll(of(kafka.ingestGroup(), kafka.samplesTopic()));
        out.addAll(of(kafka.sinkGroup(), kafka.assignmentsTopic()));
        return out;
    }

    private List<Lane> of(String group, String topic) throws Exception {
        var description = admin.describeTopics(List.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS).get(topic);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        description.partitions().forEach(p -> {
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
            earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest());
        });
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts = admin.listOffsets(earliest).all().get(5, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(5, TimeUnit.SECONDS);
        List<Lane> lanes = new ArrayList<>();
        ends.keySet().stream().sorted(java.util.Comparator.comparingInt(TopicPartition::partition)).forEach(tp -> {
            long end = ends.get(tp).offset();
            OffsetAndMetadata c = committed.get(tp);
            long at = c == null ? starts.get(tp).offset() : c.offset();
            lanes.add(new Lane(group, topic, tp.partition(), c == null ? -1 : c.offset(), end, Math.max(0, end - at)));
        });
        return lanes;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
