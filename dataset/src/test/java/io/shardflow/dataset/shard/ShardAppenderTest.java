package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Row by row ({@link ShardFileWriter#open}) writes what a list of the same rows writes, or nothing. */
class ShardAppenderTest {

    @TempDir
    Path tmp;

    private final ShardId id = new ShardId("d", "v1", 2, 7);

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldWriteTheSameBytesRowByRowAsFromAList(ShardWriterKind kind) throws Exception {
        // Fixed tensors over several chunks, strings of varying width, free and variable-length tensors.
        DatasetSpec spec = Specs.spec("d", "v1", TensorSpec.parse("image:float32:3x32x32"), TensorSpec.parse("label:int64"),
                TensorSpec.parse("caption:string"), TensorSpec.parse("boxes:float32:?<=8x4"), TensorSpec.parse("tokens:int32:?"));
        List<SampleRow> rows = EveryTypeRows.rows(spec, 200, new Random(5));
        ShardFileWriter writer = kind.create();

        writer.write(tmp.resolve("list.h5"), spec, id, rows);
        try (ShardAppender appender = writer.open(tmp.resolve("rows.h5"), spec, id)) {
            rows.forEach(appender::append);
            appender.finish();
        }

        assertThat(ShardDigest.sha256(tmp.resolve("rows.h5"))).isEqualTo(ShardDigest.sha256(tmp.resolve("list.h5")));
        assertThat(new ShardReader().read(tmp.resolve("rows.h5")).rows()).containsExactlyElementsOf(rows);
        assertOnly(tmp, "list.h5", "rows.h5");
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldWriteTheSameBytesStreamingRowsOfAKnownCountAsFromAListOrUnannounced(ShardWriterKind kind) throws Exception {
        // Fixed shapes only, over several chunks with a partial last one: the streaming writer writes them straight into the file.
        DatasetSpec spec = Specs.spec("d", "v1", TensorSpec.parse("image:float32:3x32x32"), TensorSpec.parse("label:int64"));
        List<SampleRow> rows = EveryTypeRows.rows(spec, 300, new Random(6));
        ShardFileWriter writer = kind.create();

        writer.write(tmp.resolve("list.h5"), spec, id, rows);
        try (ShardAppender appender = writer.open(tmp.resolve("counted.h5"), spec, id, rows.size())) {
            rows.forEach(appender::append);
            appender.finish();
        }
        try (ShardAppender appender = writer.open(tmp.resolve("uncounted.h5"), spec, id)) {
            rows.forEach(appender::append);
            appender.finish();
        }

        assertThat(ShardDigest.sha256(tmp.resolve("counted.h5"))).isEqualTo(ShardDigest.sha256(tmp.resolve("list.h5")))
                .isEqualTo(ShardDigest.sha256(tmp.resolve("uncounted.h5")));
        assertThat(new ShardReader().read(tmp.resolve("counted.h5")).rows()).containsExactlyElementsOf(rows);
        assertOnly(tmp, "list.h5", "counted.h5", "uncounted.h5");
    }

    @Test
    void shouldRefuseToFinishAStreamedShardThatGotOtherThanItsAnnouncedRows() throws Exception {
        DatasetSpec spec = Specs.imageSpec("d", "v1");
        List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 3, new Random(2));

        try (ShardAppender appender = new StreamingShardWriter().open(tmp.resolve("short.h5"), spec, id, 4)) {
            rows.forEach(appender::append);
            assertThatThrownBy(appender::finish).isInstanceOf(IllegalStateException.class).hasMessageContaining("announced with 4 rows");
        }
        try (ShardAppender appender = new StreamingShardWriter().open(tmp.resolve("long.h5"), spec, id, 2)) {
            appender.append(rows.get(0));
            appender.append(rows.get(1));
            assertThatThrownBy(() -> appender.append(rows.get(2))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("announced with 2 rows");
        }

        assertOnly(tmp);
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldLeaveNoFileWhenAStreamedShardIsClosedUnfinished(ShardWriterKind kind) throws Exception {
        DatasetSpec spec = Specs.imageSpec("d", "v1");
        Path target = tmp.resolve("shard.h5");
        Files.writeString(target, "an older build of this shard");

        try (ShardAppender appender = kind.create().open(target, spec, id, 200)) {
            ShardRoundTripTest.randomRows(spec, 100, new Random(1)).forEach(appender::append);
        }

        assertOnly(tmp);
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldLeaveNoFileWhenClosedUnfinished(ShardWriterKind kind) throws Exception {
        DatasetSpec spec = Specs.imageSpec("d", "v1");
        Path target = tmp.resolve("shard.h5");
        Files.writeString(target, "an older build of this shard");

        try (ShardAppender appender = kind.create().open(target, spec, id)) {
            ShardRoundTripTest.randomRows(spec, 100, new Random(1)).forEach(appender::append);
        }

        assertOnly(tmp);
    }

    @Test
    void shouldRefuseABadRowWhenItIsAppended() throws Exception {
        DatasetSpec spec = Specs.imageSpec("d", "v1");
        SampleRow bad = new SampleRow("sample-9", "dev", 0, Map.of("image", new byte[12287], "label", TensorBytes.int64(1)),
                Map.of());

        try (ShardAppender appender = new StreamingShardWriter().open(tmp.resolve("shard.h5"), spec, id)) {
            appender.append(ShardRoundTripTest.randomRows(spec, 1, new Random(1)).get(0));
            assertThatThrownBy(() -> appender.append(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sample 'sample-9'")
                    .hasMessageContaining("tensor 'image'");
        }

        assertOnly(tmp);
    }

    @Test
    void shouldRefuseToFinishAShardWithoutRows() throws Exception {
        try (ShardAppender appender = new StreamingShardWriter().open(tmp.resolve("shard.h5"), Specs.imageSpec("d", "v1"), id)) {
            assertThatThrownBy(appender::finish).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no rows");
        }

        assertOnly(tmp);
    }

    private static void assertOnly(Path dir, String... names) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrder(names);
        }
    }
}
