package io.shardflow.edge;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.shardflow.schemas.Sample;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Registers the samples topic's schemas ahead of the producers, for a registry where devices may
 * only read (docs/ARCHITECTURE.md § 6): DType, Tensor and the topic's value artifact (the Sample, referring
 * to them), exactly as {@link EdgePublisher}'s serializer registers them when it may, because it
 * is that serializer, run once on a placeholder sample by a principal allowed to write (an
 * operator's or a CI job's). A producer with auto-register off then finds the latest version.
 * Registering again changes nothing: the same text and references find the existing versions.
 */
public final class SchemaRegistration {

    private SchemaRegistration() {
    }

    /**
     * @param serdeSettings the Apicurio serde's auth and TLS keys ({@code apicurio.registry.auth.*},
     *                      {@code apicurio.registry.tls.*}) of the registering principal
     * @return the content id producers frame the topic's samples with
     */
    public static long register(String registryUrl, String topic, Map<String, Object> serdeSettings) {
        Map<String, Object> settings = new HashMap<>(serdeSettings);
        settings.put(SerdeConfig.REGISTRY_URL, registryUrl);
        settings.put(SerdeConfig.AUTO_REGISTER_ARTIFACT, true);
        settings.remove(SerdeConfig.FIND_LATEST_ARTIFACT);
        try (AvroKafkaSerializer<Sample> serializer = new AvroKafkaSerializer<>()) {
            serializer.configure(settings, false);
            byte[] framed = serializer.serialize(topic, placeholder());
            // Apicurio 3 framing: a 0 byte, then the 4-byte content id (docs/producing/wire-format.md)
            return Integer.toUnsignedLong(ByteBuffer.wrap(framed, 1, 4).getInt());
        }
    }

    /** Any valid sample: only its schema matters, and nothing is sent. */
    private static Sample placeholder() {
        return SampleBuilder.forDataset("schema-registration", "v1").id("schema-registration").device("schema-registration")
                .producedAt(Instant.EPOCH).int64("label", new long[] {0}).build();
    }
}
