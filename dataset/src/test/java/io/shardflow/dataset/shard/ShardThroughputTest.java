package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A realistic ~28 MB shard: checks the bulk array paths work at size; speed is logged, not asserted. */
class ShardThroughputTest {

    private static final Logger log = LoggerFactory.getLogger(ShardThroughputTest.class);

    @TempDir
    Path tmp;

    @Test
    void shouldWriteAndReadAThirtyMegabyteShard() throws Exception {
        DatasetSpec spec = Specs.spec("big", "v1", TensorSpec.parse("image:float32:3x96x96"), TensorSpec.parse("label:int64"));
        List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 250, new Random(7));
        Path file = tmp.resolve("big.h5");
        ShardWriter writer = new ShardWriter();
        ShardReader reader = new ShardReader();
        // One full pass first: the JIT, not the codec, dominates a cold first write.
        writer.write(tmp.resolve("warmup.h5"), spec, new ShardId("big", "v1", 0, 0), rows);
        reader.read(tmp.resolve("warmup.h5"));

        long t0 = System.nanoTime();
        writer.write(file, spec, new ShardId("big", "v1", 0, 1), rows);
        long t1 = System.nanoTime();
        ShardContents contents = reader.read(file);
        long t2 = System.nanoTime();

        double mb = Files.size(file) / 1e6;
        log.info("Shard of {} MB: write {} ms ({} MB/s), read {} ms ({} MB/s)", String.format("%.1f", mb),
                (t1 - t0) / 1_000_000, String.format("%.0f", mb / ((t1 - t0) / 1e9)),
                (t2 - t1) / 1_000_000, String.format("%.0f", mb / ((t2 - t1) / 1e9)));
        assertThat(Files.size(file)).isGreaterThan(250L * spec.sampleByteLength());
        assertThat(contents.rows()).containsExactlyElementsOf(rows);
    }
}
