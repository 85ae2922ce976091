package io.shardflow.sink.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one place a decoded sample becomes a shard row: bytes of every type, and the own shape of free-shape tensors. */
class SampleRowsTest {

    @Test
    void shouldCarryEachFreeShapeTensorsOwnShapeAndEveryTypesBytes() {
        DatasetSpec spec = new DatasetSpec("det", "v1", List.of(TensorSpec.parse("boxes:float32:?x4"), TensorSpec.parse("caption:string"),
                TensorSpec.parse("h:float16:2"), TensorSpec.parse("u:uint64")), null, "t", "d", 0, false, Instant.EPOCH);
        byte[] caption = "ü 日本".getBytes(StandardCharsets.UTF_8);
        Sample sample = Sample.newBuilder().setDataset("det").setVersion("v1").setSampleId("s").setDeviceId("dev")
                .setProducedAt(Instant.ofEpochMilli(5)).setAttributes(Map.of())
                .setTensors(List.of(new Tensor("boxes", DType.FLOAT32, List.of(3, 4), ByteBuffer.allocate(48)),
                        new Tensor("caption", DType.STRING, List.of(), ByteBuffer.wrap(caption)),
                        new Tensor("h", DType.FLOAT16, List.of(2), ByteBuffer.wrap(new byte[] {0, 0x3C, 0, (byte) 0xC0})),
                        new Tensor("u", DType.UINT64, List.of(), ByteBuffer.wrap(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}))))
                .build();

        SampleRow row = SampleRows.of(sample, spec);

        assertThat(row.shapes()).isEqualTo(Map.of("boxes", List.of(3, 4)));
        assertThat(row.tensors().get("caption")).isEqualTo(caption);
        assertThat(row.tensors().get("h")).containsExactly(0, 0x3C, 0, 0xC0);
        assertThat(row.tensors().get("u")).hasSize(8).containsOnly(-1);
        assertThat(row.tensors().get("boxes")).hasSize(48);
    }

    @Test
    void shouldTakeAWholeArrayAsItIsAndCopyOnlyAPartOfOne() {
        byte[] whole = {1, 2, 3, 4};
        byte[] shared = {9, 1, 2, 3, 9};

        assertThat(SampleRows.bytesOf(java.nio.ByteBuffer.wrap(whole))).isSameAs(whole);
        byte[] part = SampleRows.bytesOf(java.nio.ByteBuffer.wrap(shared, 1, 3));
        assertThat(part).containsExactly(1, 2, 3);
        assertThat(SampleRows.bytesOf(java.nio.ByteBuffer.wrap(shared, 1, 3).slice())).containsExactly(1, 2, 3).isNotSameAs(shared);
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(2).put((byte) 7).put((byte) 8).flip();
        assertThat(SampleRows.bytesOf(direct)).containsExactly(7, 8);
        assertThat(direct.remaining()).as("the buffer itself is left as it was").isEqualTo(2);
    }
}
