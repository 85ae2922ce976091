package io.shardflow.edge;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.shardflow.schemas.Sample;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes samples to the samples topic, Avro-encoded against the Apicurio registry. Records are
 * keyed by sample id, so a re-sent sample lands in the same partition and ingest-app can recognise
 * it as a duplicate. The producer is idempotent with acks=all: an acknowledged sample is durable.
 */
public final class EdgePublisher implements AutoCloseable {

    private final Producer<String, Sample> producer;
    private final String topic;

    EdgePublisher(Producer<String, Sample> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    public static EdgePublisher create(String bootstrapServers, String registryUrl, String topic, Map<String, Object> overrides) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 * 1024 * 1024);
        props.put(SerdeConfig.REGISTRY_URL, registryUrl);
        props.put(SerdeConfig.AUTO_REGISTER_ARTIFACT, true);
        props.putAll(overrides);
        AvroKafkaSerializer<Sample> valueSerializer = new AvroKafkaSerializer<>();
        valueSerializer.configure(props, false);
        return new EdgePublisher(new KafkaProducer<>(props, new StringSerializer(), valueSerializer), topic);
    }

    /** Sends one sample; the future completes when the broker has acknowledged it. */
    public CompletableFuture<RecordMetadata> publish(Sample sample) {
        CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        producer.send(new ProducerRecord<>(topic, sample.getSampleId(), sample), (metadata, error) -> {
            if (error != null) {
                acked.completeExceptionally(error);
            } else {
                acked.complete(metadata);
            }
        });
        return acked;
    }

    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
    }
}
