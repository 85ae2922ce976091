package io.shardflow.dataset.shard;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** A tensor of every newer kind (half floats, unsigned, string, bytes, free dimensions) and random rows for them. */
public final class EveryTypeRows {

    public static final TensorSpec[] TENSORS = {
            TensorSpec.parse("half:float16:3"), TensorSpec.parse("brain:bfloat16:2x2"), TensorSpec.parse("u16:uint16:4"),
            TensorSpec.parse("u32:uint32"), TensorSpec.parse("u64:uint64:2"), TensorSpec.parse("caption:string"),
            TensorSpec.parse("blob:bytes"), TensorSpec.parse("boxes:float32:?<=8x4"), TensorSpec.parse("tokens:int32:?"),
            TensorSpec.parse("grid:uint8:?x?x3")};

    private EveryTypeRows() {
    }

    /** Rows with random bits in fixed tensors, random-length UTF-8, bytes and free dimensions (some empty). */
    public static List<SampleRow> rows(DatasetSpec spec, int n, Random random) {
        List<SampleRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, byte[]> tensors = new HashMap<>();
            Map<String, List<Integer>> shapes = new HashMap<>();
            for (TensorSpec tensor : spec.tensors()) {
                byte[] bytes;
                if (tensor.dtype() == io.shardflow.dataset.spec.DType.STRING) {
                    bytes = ("row " + i + " ü 日本 😀 ".repeat(random.nextInt(4))).getBytes(StandardCharsets.UTF_8);
                } else if (tensor.dtype().variableLength()) {
                    bytes = new byte[random.nextInt(300)];
                } else if (tensor.hasFreeDimension()) {
                    List<Integer> shape = new ArrayList<>();
                    long elements = 1;
                    for (int d = 0; d < tensor.shape().size(); d++) {
                        int max = tensor.maxDims().get(d) > 0 ? tensor.maxDims().get(d) : 6;
                        int dim = tensor.shape().get(d) == TensorSpec.FREE ? random.nextInt(max + 1) : tensor.shape().get(d);
                        shape.add(dim);
                        elements *= dim;
                    }
                    shapes.put(tensor.name(), shape);
                    bytes = new byte[(int) elements * tensor.dtype().itemSize()];
                } else {
                    bytes = new byte[(int) tensor.byteLength()];
                }
                if (tensor.dtype() != io.shardflow.dataset.spec.DType.STRING) {
                    random.nextBytes(bytes);
                }
                tensors.put(tensor.name(), bytes);
            }
            rows.add(new SampleRow("s-" + i, "dev", 1_700_000_000_000L + i, tensors, Map.of("k", "v" + i), shapes));
        }
        return rows;
    }
}
