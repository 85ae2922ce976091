package io.shardflow.sink.write;

import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The one place a decoded {@link Sample} becomes a shard row: every change to what a row holds
 * (tensor types, layouts) is made here, so the sink never has two notions of a row.
 */
public final class SampleRows {

    private SampleRows() {
    }

    public static SampleRow of(Sample sample) {
        Map<String, byte[]> tensors = new HashMap<>();
        for (Tensor tensor : sample.getTensors()) {
            ByteBuffer data = tensor.getData().duplicate();
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            tensors.put(tensor.getName(), bytes);
        }
        return new SampleRow(sample.getSampleId(), sample.getDeviceId(), sample.getProducedAt().toEpochMilli(), tensors,
                sample.getAttributes());
    }
}
