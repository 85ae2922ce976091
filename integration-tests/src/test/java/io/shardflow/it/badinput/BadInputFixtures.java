package io.shardflow.it.badinput;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.edge.SampleBuilder;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** The strict test dataset (a float32 2x4 image and an int64 label, no NaN) and what the bad-input tests build on it. */
final class BadInputFixtures {

    static final String DATASET = "strict";
    static final String VERSION = "v1";

    private BadInputFixtures() {
    }

    static DatasetSpec spec() {
        return new DatasetSpec(DATASET, VERSION, List.of(TensorSpec.parse("image:float32:2x4"), TensorSpec.parse("label:int64")),
                "label", "it", "no NaN allowed", 0, false, Instant.now());
    }

    static Sample good(String id) {
        return sample(id, new float[] {0, 1, 2, 3, 4, 5, 6, 7});
    }

    static Sample sample(String id, float[] image) {
        return SampleBuilder.forDataset(DATASET, VERSION).id(id).device("dev").producedAt(Instant.ofEpochMilli(1))
                .float32("image", image, 2, 4).int64("label", new long[] {3}).build();
    }

    static Sample mutate(Sample sample, Consumer<Sample> change) {
        change.accept(sample);
        return sample;
    }

    static byte[] serialize(String registryUrl, Object value) {
        try (AvroKafkaSerializer<Object> serializer = new AvroKafkaSerializer<>()) {
            serializer.configure(Map.of(SerdeConfig.REGISTRY_URL, registryUrl, SerdeConfig.AUTO_REGISTER_ARTIFACT, true), false);
            return serializer.serialize("samples", value);
        }
    }

    /**
     * The keys of the samples records the assignments name (a decision names its record by partition,
     * the lane, and offset); a name with no record among {@code samples} yields a null key.
     */
    static List<String> assignedIds(List<ConsumerRecord<byte[], byte[]>> records, List<ConsumerRecord<byte[], byte[]>> samples) {
        Map<String, String> keys = new HashMap<>();
        samples.forEach(s -> keys.put(s.partition() + "@" + s.offset(), new String(s.key(), StandardCharsets.UTF_8)));
        List<String> ids = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            ShardEvent event = ShardEventCodec.decode(record.value());
            if (event.getBody() instanceof SampleAssigned assigned) {
                ids.add(keys.get(event.getLane() + "@" + assigned.getSourceOffset()));
            }
        }
        return ids;
    }

    static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
