package io.shardflow.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Plain byte-level produce and read-back against the real broker, for tests. */
public final class KafkaTopics {

    private final String bootstrapServers;

    public KafkaTopics(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    public void produce(String topic, List<ProducerRecord<byte[], byte[]>> records) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (ProducerRecord<byte[], byte[]> record : records) {
                producer.send(record).get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Sends all the records at once, then waits for every acknowledgement: they reach the broker
     * within moments of each other however slow each round trip is (each partition keeps its order).
     */
    public void produceTogether(String topic, List<ProducerRecord<byte[], byte[]>> records) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            for (ProducerRecord<byte[], byte[]> record : records) {
                acks.add(producer.send(record));
            }
            for (java.util.concurrent.Future<?> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        // Room for records up to the samples topic's max.message.bytes, so tests can send near the limit.
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 << 20);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Reads committed records from the start of {@code topic} until {@code done} holds or the timeout passes. */
    public List<ConsumerRecord<byte[], byte[]>> readUntil(String topic, Predicate<List<ConsumerRecord<byte[], byte[]>>> done,
                                                          Duration timeout) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!done.test(records) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(300)).forEach(records::add);
            }
        }
        return records;
    }
}
