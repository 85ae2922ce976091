package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Shards built in memory ({@link ShardFileWriter#openInMemory}) against the same rows written to disk. */
class InMemoryShardTest {

    @TempDir
    Path tmp;

    private final StreamingShardWriter writer = new StreamingShardWriter();

    @ParameterizedTest
    @ValueSource(strings = {"none", "lzf"})
    void shouldHoldTheVeryBytesOfTheFileWrittenToDisk(String codec) throws Exception {
        // 300 rows of 12 KiB images: three whole 1 MiB chunks and a partial one, then the per-row datasets.
        DatasetSpec spec = Specs.imageSpec("cifar", "v1").withCompression(Compression.parse(codec));
        ShardId id = new ShardId("cifar", "v1", 2, 7);
        List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 300, new Random(11));
        Path onDisk = tmp.resolve("disk.h5");
        try (ShardAppender appender = writer.open(onDisk, spec, id, rows.size())) {
            rows.forEach(appender::append);
            appender.finish();
        }

        byte[] inMemory = buildInMemory(spec, id, rows, 1 << 20);

        assertThat(inMemory).isEqualTo(Files.readAllBytes(onDisk));
        assertThat(new ShardReader().read(onDisk).rows()).containsExactlyElementsOf(rows);
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).containsExactly(onDisk); // the in-memory build left no file, not even its spill
        }
    }

    @Test
    void shouldNotDependOnHowWellTheExpectedSizeWasGuessed() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        ShardId id = new ShardId("cifar", "v1", 0, 1);
        List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 120, new Random(5));

        assertThat(buildInMemory(spec, id, rows, 1)).isEqualTo(buildInMemory(spec, id, rows, 64L << 20));
    }

    @Test
    void shouldLeaveVariableTensorsAndGzipToTheWriterOnDisk() {
        DatasetSpec spec = Specs.spec("audio", "v1", TensorSpec.parse("boxes:float32:?x4"));
        DatasetSpec gzip = Specs.imageSpec("c", "v1").withCompression(Compression.parse("gzip"));

        assertThat(writer.openInMemory(tmp.resolve("x.h5"), spec, new ShardId("audio", "v1", 0, 0), 10, 1000)).isEmpty();
        assertThat(writer.openInMemory(tmp.resolve("x.h5"), gzip, new ShardId("c", "v1", 0, 0), 10, 1000)).isEmpty();
        assertThat(new ShardWriter().openInMemory(tmp.resolve("x.h5"), Specs.imageSpec("c", "v1"),
                new ShardId("c", "v1", 0, 0), 10, 1000)).isEmpty();
    }

    @Test
    void shouldRefuseABadRowAndAWrongRowCountLeavingNothingBehind() throws Exception {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        ShardId id = new ShardId("cifar", "v1", 0, 0);
        SampleRow bad = new SampleRow("sample-9", "dev", 0, Map.of("image", new byte[12287], "label", TensorBytes.int64(1)), Map.of());
        try (ShardImageAppender appender = writer.openInMemory(tmp.resolve("x.h5"), spec, id, 2, 30_000).orElseThrow()) {
            assertThatThrownBy(() -> appender.append(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tensor 'image'");
            appender.append(ShardRoundTripTest.randomRows(spec, 1, new Random(1)).get(0));
            assertThatThrownBy(appender::finish).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("announced with 2 rows");
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void shouldWriteTheImageToAFileThatReadsBackAndRefuseUseAfterClose() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");
        ShardId id = new ShardId("cifar", "v1", 0, 3);
        List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 40, new Random(8));
        ShardImage image;
        try (ShardImageAppender appender = writer.openInMemory(tmp.resolve("x.h5"), spec, id, rows.size(), 500_000).orElseThrow()) {
            rows.forEach(appender::append);
            image = appender.finish();
        }
        Path file = tmp.resolve("spilled.h5");
        image.writeTo(file);
        image.close();

        assertThat(new ShardReader().read(file).rows()).containsExactlyElementsOf(rows);
        assertThatThrownBy(image::bytes).isInstanceOf(IllegalStateException.class);
    }

    private byte[] buildInMemory(DatasetSpec spec, ShardId id, List<SampleRow> rows, long expectedBytes) {
        try (ShardImageAppender appender = writer.openInMemory(tmp.resolve("mem.h5"), spec, id, rows.size(), expectedBytes)
                .orElseThrow()) {
            rows.forEach(appender::append);
            try (ShardImage image = appender.finish()) {
                ByteBuffer bytes = image.bytes();
                byte[] copy = new byte[bytes.remaining()];
                bytes.get(copy);
                assertThat(image.size()).isEqualTo(copy.length);
                return copy;
            }
        }
    }
}
