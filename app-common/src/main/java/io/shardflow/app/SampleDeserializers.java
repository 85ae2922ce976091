package io.shardflow.app;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The one way a service reads records of the samples topic: the Apicurio Avro deserializer with the
 * specific reader, so a record decodes to the generated {@code Sample} class. ingest-app decodes a
 * record to decide about it and shard-sink decodes it again to write its row; both must see the same
 * sample, so both build their deserializer here.
 */
public final class SampleDeserializers {

    private SampleDeserializers() {
    }

    /** @param serdeSettings the registry URL, auth and TLS settings (see {@link RegistryConfig#serdeSettings}) */
    public static Deserializer<Object> forRegistry(Map<String, Object> serdeSettings) {
        AvroKafkaDeserializer<Object> deserializer = new AvroKafkaDeserializer<>();
        Map<String, Object> settings = new HashMap<>(serdeSettings);
        settings.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true);
        // The default provider fingerprints the writer schema per record to find its cached reader.
        settings.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, CachedDatumProvider.class.getName());
        deserializer.configure(settings, false);
        return deserializer;
    }
}
