package io.shardflow.sink.write;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.shard.ShardWriterKind;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import io.shardflow.sink.ShardEvents;
import io.shardflow.sink.source.SampleSource;
import io.shardflow.sink.source.SourcedSample;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Builds one shard of {@code ROWS} samples of 1 MiB each through {@link ShardBuilder}, in a process of
 * its own so a test can run it under a small heap: {@code BuildShardMain jhdf|hdf5 WORK_DIR ROWS}. The
 * samples source makes each record only when the builder asks for it, as the samples topic hands them
 * over one by one. Prints {@code sampleCount fileBytes peakHeapBytes}.
 */
public final class BuildShardMain {

    static final int ROW_BYTES = 1 << 20;
    static final String DATASET = "big";

    private BuildShardMain() {
    }

    public static void main(String[] args) {
        int rows = Integer.parseInt(args[2]);
        DatasetSpec spec = spec();
        ShardId id = new ShardId(DATASET, "v1", 0, 0);
        // The records of the shard sit at every other offset, as when two lanes share a partition.
        List<byte[]> spooled = new ArrayList<>();
        for (int index = 0; index < rows; index++) {
            spooled.add(ShardEvents.assigned(id, index, 2 * index + 1));
        }
        var seal = ShardEvents.seal(id, rows, (long) rows * ROW_BYTES, spec.fingerprint());
        SampleSource lazy = (partition, offsets, each) -> offsets.forEach(offset -> each.accept(new SourcedSample(offset, sample(offset))));

        BuiltShard built = new ShardBuilder(ShardWriterKind.fromSetting(args[0]).create(), Path.of(args[1]), lazy)
                .build(id, spec, spooled, seal);

        System.out.println(built.entry().sampleCount() + " " + built.entry().bytes() + " " + peakHeap());
    }

    static DatasetSpec spec() {
        return Specs.spec(DATASET, "v1", TensorSpec.parse("pixels:uint8:1024x1024"));
    }

    /** The record at {@code offset}: its first byte is the offset, the rest a value of it. */
    static Sample sample(long offset) {
        byte[] pixels = new byte[ROW_BYTES];
        Arrays.fill(pixels, (byte) (offset * 31));
        pixels[0] = (byte) offset;
        return Sample.newBuilder()
                .setDataset(DATASET).setVersion("v1")
                .setSampleId("sample-" + offset).setDeviceId("device-" + (offset % 5))
                .setProducedAt(Instant.ofEpochMilli(1_700_000_000_000L + offset))
                .setTensors(List.of(new Tensor("pixels", DType.UINT8, List.of(1024, 1024), ByteBuffer.wrap(pixels))))
                .setAttributes(Map.of())
                .build();
    }

    private static long peakHeap() {
        return ManagementFactory.getMemoryPoolMXBeans().stream().filter(pool -> pool.getType() == MemoryType.HEAP)
                .mapToLong(pool -> pool.getPeakUsage().getUsed()).sum();
    }
}
