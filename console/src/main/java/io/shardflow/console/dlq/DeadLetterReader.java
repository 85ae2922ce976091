package io.shardflow.console.dlq;

import io.shardflow.console.ConsoleSettings.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the dead-letter topic without a consumer group (nothing is committed, nothing is moved): the
 * newest records of every partition, or one record by partition and offset. Bounded: at most
 * {@code window} records per partition are read per request, within {@code timeout}.
 */
public final class DeadLetterReader implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final Duration timeout;

    public DeadLetterReader(KafkaSettings kafka, String topic, Duration timeout) {
        Map<String, Object> settings = new HashMap<>(kafka.clientSettings());
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.CLIENT_ID_CONFIG, "shardflow-console-dlq");
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        settings.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        this.consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.topic = topic;
        this.timeout = timeout;
    }

    public String topic() {
        return topic;
    }

    /** The newest {@code window} records of each partition, newest first. */
    public synchronized List<DeadLetter> newest(int window) {
        List<TopicPartition> partitions = partitions();
        if (partitions.isEmpty()) {
            return List.of();
        }
        consumer.assign(partitions);
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, timeout);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
        Map<TopicPartition, Long> remaining = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            long from = Math.max(begin.get(tp), end.get(tp) - window);
            consumer.seek(tp, from);
            if (end.get(tp) > from) {
                remaining.put(tp, end.get(tp));
            }
        }
        List<DeadLetter> letters = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!remaining.isEmpty() && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                Long stop = remaining.get(tp);
                if (stop != null && record.offset() < stop) {
                    letters.add(toLetter(record));
                }
            }
            // Transaction markers take offsets too: a partition is done once its position reaches the end.
            remaining.keySet().removeIf(tp -> consumer.position(tp) >= remaining.get(tp));
        }
        letters.sort(Comparator.comparing(DeadLetter::timestamp).thenComparing(DeadLetter::offset).reversed());
        return letters;
    }

    /** The record at {@code partition}/{@code offset}, if it is still on the topic. */
    public synchronized Optional<DeadLetter> at(int partition, long offset) {
        TopicPartition tp = new TopicPartition(topic, partition);
        if (partitions().stream().noneMatch(tp::equals)) {
            return Optional.empty();
        }
        consumer.assign(List.of(tp));
        long begin = consumer.beginningOffsets(List.of(tp), timeout).get(tp);
        long end = consumer.endOffsets(List.of(tp), timeout).get(tp);
        if (offset < begin || offset >= end) {
            return Optional.empty();
        }
        consumer.seek(tp, offset);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && consumer.position(tp) <= offset) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                if (record.offset() == offset) {
                    return Optional.of(toLetter(record));
                }
                if (record.offset() > offset) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    private List<TopicPartition> partitions() {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        return infos == null ? List.of() : infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    static DeadLetter toLetter(ConsumerRecord<byte[], byte[]> record) {
        Map<String, byte[]> theirs = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            if (!DlqHeaders.OURS.contains(h.key()) && h.value() != null) {
                theirs.put(h.key(), h.value());
            }
        }
        return new DeadLetter(record.topic(), record.partition(), record.offset(), Instant.ofEpochMilli(record.timestamp()),
                header(record, DlqHeaders.REASON, "UNKNOWN"), header(record, DlqHeaders.DETAIL, ""),
                header(record, DlqHeaders.SOURCE, ""), header(record, DlqHeaders.DROPPED, null), record.key(), record.value(), theirs);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name, String fallback) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? fallback : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
