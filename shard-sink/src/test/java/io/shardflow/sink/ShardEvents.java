package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.TensorBytes;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.SealReason;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.source.SampleSource;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * shard-assignments records (and the samples records they name) for a small dataset (float32 2x2 image + int64 label, 24 payload bytes
 * per sample), built with the Avro classes ingest-app uses. Samples are derived from a seed, so the
 * expected rows can be rebuilt independently of the code under test.
 */
public final class ShardEvents {

    public static final String DATASET = "cams";
    public static final String VERSION = "v1";
    /** A second version of the dataset: its samples have seeds from 1000 to 1999 (see {@link #sample(int)}). */
    public static final String OTHER_VERSION = "v2";
    public static final int PAYLOAD_BYTES = 2 * 2 * 4 + 8;
    private static final long BASE_MILLIS = 1_700_000_000_000L;

    private ShardEvents() {
    }

    public static DatasetSpec spec() {
        return Specs.spec(DATASET, VERSION, TensorSpec.parse("image:float32:2x2"), TensorSpec.parse("label:int64"));
    }

    public static ShardId shard(int lane, long sequence) {
        return new ShardId(DATASET, VERSION, lane, sequence);
    }

    /** The sample of a seed; seeds 1000 to 1999 belong to {@link #OTHER_VERSION}, all others to {@link #VERSION}. */
    public static Sample sample(int seed) {
        return Sample.newBuilder()
                .setDataset(DATASET).setVersion(seed >= 1000 && seed < 2000 ? OTHER_VERSION : VERSION)
                .setSampleId("sample-" + seed).setDeviceId("device-" + (seed % 3))
                .setProducedAt(Instant.ofEpochMilli(BASE_MILLIS + seed * 1000L))
                .setTensors(List.of(
                        new Tensor("image", DType.FLOAT32, List.of(2, 2), ByteBuffer.wrap(image(seed))),
                        new Tensor("label", DType.INT64, List.of(), ByteBuffer.wrap(TensorBytes.int64(seed)))))
                .setAttributes(Map.of("site", "lab-" + seed, "seed", Integer.toString(seed)))
                .build();
    }

    /** The row a shard must hold for {@link #sample(int)}, built from the raw values, not from the sink's code. */
    public static SampleRow expectedRow(int seed) {
        return new SampleRow("sample-" + seed, "device-" + (seed % 3), BASE_MILLIS + seed * 1000L,
                Map.of("image", image(seed), "label", TensorBytes.int64(seed)),
                Map.of("site", "lab-" + seed, "seed", Integer.toString(seed)));
    }

    /** The decision putting the samples record of {@link #samplesTopic()} at offset {@code seed} at row {@code index}. */
    public static byte[] assigned(ShardId shard, int index, int seed) {
        return ShardEventCodec.encode(new ShardEvent(shard.dataset(), shard.version(), shard.lane(), shard.sequence(),
                new SampleAssigned(index, (long) seed)));
    }

    /** A samples topic whose record at offset {@code n} is {@link #sample(int) sample(n)} in every partition. */
    public static SampleSource samplesTopic() {
        return new FixtureSamplesTopic();
    }

    /** The seal marker ingest-app writes after {@code count} samples of this fixture. */
    public static byte[] sealed(ShardId shard, int count) {
        return sealed(shard, count, (long) count * PAYLOAD_BYTES, spec().fingerprint());
    }

    public static byte[] sealed(ShardId shard, int count, long payloadBytes, String fingerprint) {
        return ShardEventCodec.encode(new ShardEvent(shard.dataset(), shard.version(), shard.lane(), shard.sequence(),
                new ShardSealed(count, payloadBytes, SealReason.COUNT, fingerprint)));
    }

    public static ShardSealed seal(ShardId shard, int count) {
        return seal(shard, count, (long) count * PAYLOAD_BYTES, spec().fingerprint());
    }

    public static ShardSealed seal(ShardId shard, int count, long payloadBytes, String fingerprint) {
        return (ShardSealed) ShardEventCodec.decode(sealed(shard, count, payloadBytes, fingerprint)).getBody();
    }

    public static byte[] key(ShardId shard) {
        return shard.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] image(int seed) {
        return TensorBytes.float32(seed, seed + 0.5f, -seed, seed * 2f);
    }
}
