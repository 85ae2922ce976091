package io.shardflow.ingest.support;

import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Samples of a small test dataset: a float32 2x2 image and an int64 label, 24 payload bytes each. */
public final class TestSamples {

    public static final String DATASET = "cams";
    public static final String VERSION = "v1";
    public static final int PAYLOAD_BYTES = 2 * 2 * 4 + 8;
    /** UTF-8 bytes of the attribute keys and values, which count toward the shard byte budget too. */
    public static final int ATTRIBUTE_BYTES = "site".length() + "lab".length();

    private TestSamples() {
    }

    public static DatasetSpec spec() {
        return new DatasetSpec(DATASET, VERSION,
                List.of(new TensorSpec("image", DType.FLOAT32, List.of(2, 2)), new TensorSpec("label", DType.INT64, List.of())),
                "label", "tests", "test dataset", 0L, false, Instant.EPOCH);
    }

    public static Sample sample(String id) {
        return sample(id, new float[] {1f, 2f, 3f, id.hashCode()}, 7L);
    }

    public static Sample sample(String id, float[] pixels, long label) {
        ByteBuffer image = ByteBuffer.allocate(pixels.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float p : pixels) {
            image.putFloat(p);
        }
        image.flip();
        ByteBuffer labelBytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, label);
        return Sample.newBuilder()
                .setDataset(DATASET).setVersion(VERSION).setSampleId(id).setDeviceId("device-1")
                .setProducedAt(Instant.ofEpochMilli(1_700_000_000_000L))
                .setTensors(List.of(
                        new Tensor("image", io.shardflow.schemas.DType.FLOAT32, List.of(2, 2), image),
                        new Tensor("label", io.shardflow.schemas.DType.INT64, List.of(), labelBytes)))
                .setAttributes(Map.of("site", "lab"))
                .build();
    }
}
