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
            ByteBuffer data = tensor.getData().duplicate();
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            tensors.put(tensor.getName(), bytes);
            if (spec.tensor(tensor.getName()).map(TensorSpec::hasFreeDimension).orElse(false)) {
                shapes.put(tensor.getName(), List.copyOf(tensor.getShape()));
            }
        }
        return new SampleRow(sample.getSampleId(), sample.getDeviceId(), sample.getProducedAt().toEpochMilli(), tensors,
                sample.getAttributes(), shapes);
    }
}
