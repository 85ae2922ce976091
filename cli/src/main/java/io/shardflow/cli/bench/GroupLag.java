package io.shardflow.cli.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** How many records of a topic a consumer group (or a Streams application) has not yet committed. */
public final class GroupLag {

    private GroupLag() {
    }

    public static long of(Admin admin, String group, String topic) throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        var partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
        var ends = admin.listOffsets(partitions.stream().collect(Collectors.toMap(partition -> partition, partition -> OffsetSpec.latest())))
                .all().get();
        long lag = 0;
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata done = committed.get(partition);
            lag += ends.get(partition).offset() - (done == null ? 0 : done.offset());
        }
        return lag;
    }
}
