package io.shardflow.edge;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.shardflow.schemas.Sample;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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
import org.apache.kafka.common.utils.Utils;

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

    /**
     * A publisher for a secured cluster: {@code clientConfig} is a standard Kafka client properties
     * file ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}; {@code apicurio.registry.auth.*}
     * for an authenticating registry), the same file the shardflow services take as
     * {@code kafka.client.config}. Secrets stay in the file, out of the device's command line.
     */
    public static EdgePublisher create(String bootstrapServers, String registryUrl, String topic, Path clientConfig) {
        try {
            return create(bootstrapServers, registryUrl, topic, Utils.propsToMap(Utils.loadProps(clientConfig.toString())));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Kafka client config " + clientConfig, e);
        }
    }

    /** @param overrides producer and serde settings applied over the defaults (security settings among them) */
    public static EdgePublisher create(String bootstrapServers, String registryUrl, String topic, Map<String, Object> overrides) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 * 1024 * 1024);
        // Batches cross the device's uplink compressed; lz4 costs a device little CPU. The broker keeps
        // them as sent (topic compression.type=producer) and consumers inflate them. Override with
        // compression.type (zstd packs float tensors tighter; none for already-encoded JPEG frames).
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
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
