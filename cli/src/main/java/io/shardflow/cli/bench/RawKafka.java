package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The raw baselines' consumer: a plain byte-array consumer of every partition of one topic from the
 * beginning, with no group (so no rebalance wait inside the timed part) and nothing done per record.
 */
public final class RawKafka implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> leftover = new ArrayDeque<>();

    private RawKafka(KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    public static RawKafka fromBeginning(String bootstrapServers, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return new RawKafka(consumer);
    }

    /**
     * Reads {@code expected} records, handing each to {@code each}; returns the value bytes read.
     * Records a poll returned beyond {@code expected} are kept for the next call, so consecutive
     * calls (a warm-up, then a timed part) split the stream exactly.
     */
    public long drain(long expected, Duration timeout, Progress progress, Consumer<ConsumerRecord<byte[], byte[]>> each) {
        long received = 0;
        long bytes = 0;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (received < expected) {
            if (leftover.isEmpty()) {
                consumer.poll(Duration.ofMillis(200)).forEach(leftover::add);
            }
            while (received < expected && !leftover.isEmpty()) {
                ConsumerRecord<byte[], byte[]> record = leftover.poll();
                received++;
                bytes += record.value() == null ? 0 : record.value().length;
                each.accept(record);
                progress.advance(1);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("raw consumer got " + received + " of " + expected + " records within " + timeout.toSeconds() + " s");
            }
        }
        return bytes;
    }

    public long drain(long expected, Duration timeout, Progress progress) {
        return drain(expected, timeout, progress, record -> { });
    }

    @Override
    public void close() {
        consumer.close();
    }
}
