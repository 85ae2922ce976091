package io.shardflow.sink.write;

import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place a decoded {@link Sample} becomes a shard row: every change to what a row holds
 * (tensor types, layouts) is made here, so the sink never has two notions of a row.
 */
public final class SampleRows {

    private SampleRows() {
    }

    /** Its tensor bytes, and the sample's own shape of each tensor whose spec leaves a dimension free (fixed shapes come from the spec). */
    public static SampleRow of(Sample sample, DatasetSpec spec) {
        Map<String, byte[]> tensors = new HashMap<>();
        Map<String, List<Integer>> shapes = new HashMap<>();
        for (Tensor tensor : sample.getTensors()) {
            tensors.put(tensor.getName(), bytesOf(tensor.getData()));
            if (spec.tensor(tensor.getName()).map(TensorSpec::hasFreeDimension).orElse(false)) {
                shapes.put(tensor.getName(), List.copyOf(tensor.getShape()));
            }
        }
        return new SampleRow(sample.getSampleId(), sample.getDeviceId(), sample.getProducedAt().toEpochMilli(), tensors,
                sample.getAttributes(), shapes);
    }

    /**
     * The buffer's bytes. The Avro decoder gives each tensor a fresh buffer over an array of exactly its
     * bytes, used by nothing else once the row is made: that array is the row's, with no copy of the tensor.
     */
    static byte[] bytesOf(ByteBuffer data) {
        if (data.hasArray() && data.arrayOffset() == 0 && data.position() == 0 && data.remaining() == data.array().length) {
            return data.array();
        }
        ByteBuffer view = data.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }
}
