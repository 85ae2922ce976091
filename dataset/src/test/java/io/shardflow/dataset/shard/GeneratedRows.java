package io.shardflow.dataset.shard;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.util.AbstractList;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * A shard's rows made on demand, each from its index alone: a shard of any size can be written
 * without its rows ever being in the heap together. Tensor bytes are slices of one random block.
 */
final class GeneratedRows extends AbstractList<SampleRow> {

    private static final int BLOCK = 1 << 20;

    private final DatasetSpec spec;
    private final int size;
    private final byte[] block = new byte[BLOCK];

    GeneratedRows(DatasetSpec spec, int size) {
        this.spec = spec;
        this.size = size;
        new Random(7).nextBytes(block);
    }

    /** Rows of {@code spec} that add up to about {@code bytes} of tensor data. */
    static GeneratedRows ofTensorBytes(DatasetSpec spec, long bytes) {
        long rowBytes = spec.tensors().stream().mapToLong(TensorSpec::byteLength).sum();
        return new GeneratedRows(spec, Math.toIntExact(Math.max(1, bytes / rowBytes)));
    }

    @Override
    public SampleRow get(int index) {
        Map<String, byte[]> tensors = new HashMap<>();
        long offset = index * 7919L;
        for (TensorSpec tensor : spec.tensors()) {
            int length = Math.toIntExact(tensor.byteLength());
            byte[] bytes = new byte[length];
            int start = (int) (offset % (BLOCK - length));
            System.arraycopy(block, start, bytes, 0, length);
            tensors.put(tensor.name(), bytes);
            offset += 104_729L;
        }
        return new SampleRow("sample-" + index, "device-" + (index % 13), 1_700_000_000_000L + index, tensors,
                Map.of("site", "lab-" + (index % 5)));
    }

    @Override
    public int size() {
        return size;
    }
}
