package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jhdf.HdfFile;
import io.jhdf.WritableHdfFile;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ShardWriterTest {

    @TempDir
    Path tmp;

    private final DatasetSpec spec = Specs.imageSpec("cifar", "v1");
    private final ShardId id = new ShardId("cifar", "v1", 1, 5);

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldWriteByteIdenticalFilesForTheSameRows(ShardWriterKind kind) throws Exception {
        List<SampleRow> rows = ShardRoundTripTest.randomRows(spec, 20, new Random(42));

        kind.create().write(tmp.resolve("a.h5"), spec, id, rows);
        Thread.sleep(1100); // a clock value in the file would now differ in its seconds
        kind.create().write(tmp.resolve("b.h5"), spec, id, ShardRoundTripTest.randomRows(spec, 20, new Random(42)));

        assertThat(ShardDigest.sha256(tmp.resolve("a.h5"))).isEqualTo(ShardDigest.sha256(tmp.resolve("b.h5")));
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldReplaceAnExistingLargerFileCompletely(ShardWriterKind kind) throws Exception {
        Path target = tmp.resolve("shard.h5");
        List<SampleRow> small = ShardRoundTripTest.randomRows(spec, 2, new Random(1));
        kind.create().write(tmp.resolve("fresh.h5"), spec, id, small);
        kind.create().write(target, spec, id, ShardRoundTripTest.randomRows(spec, 50, new Random(2)));

        kind.create().write(target, spec, id, small);

        assertThat(Files.size(target)).isEqualTo(Files.size(tmp.resolve("fresh.h5")));
        assertThat(ShardDigest.sha256(target)).isEqualTo(ShardDigest.sha256(tmp.resolve("fresh.h5")));
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldNameTheSampleAndTensorWithAWrongByteLength(ShardWriterKind kind) {
        SampleRow bad = new SampleRow("sample-9", "dev", 0,
                Map.of("image", new byte[12287], "label", TensorBytes.int64(1)), Map.of());

        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, id, List.of(bad)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sample 'sample-9'")
                .hasMessageContaining("tensor 'image'")
                .hasMessageContaining("12287 bytes")
                .hasMessageContaining("needs 12288");
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldNameTheMissingAndTheUnexpectedTensor(ShardWriterKind kind) {
        SampleRow missing = new SampleRow("s1", "dev", 0, Map.of("image", new byte[12288]), Map.of());
        SampleRow extra = new SampleRow("s2", "dev", 0,
                Map.of("image", new byte[12288], "label", new byte[8], "depth", new byte[4]), Map.of());

        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, id, List.of(missing)))
                .hasMessageContaining("sample 's1' has no tensor 'label'");
        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, id, List.of(extra)))
                .hasMessageContaining("sample 's2' has tensor 'depth' which is not in the spec");
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldRefuseEmptyShardsForeignIdsAndNulCharacters(ShardWriterKind kind) {
        SampleRow ok = new SampleRow("s", "dev", 0, Map.of("image", new byte[12288], "label", new byte[8]), Map.of());
        SampleRow nul = new SampleRow("s\0x", "dev", 0, Map.of("image", new byte[12288], "label", new byte[8]), Map.of());

        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, id, List.of())).hasMessageContaining("no rows");
        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, new ShardId("other", "v1", 0, 0), List.of(ok)))
                .hasMessageContaining("does not belong to dataset cifar/v1");
        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, id, List.of(nul)))
                .hasMessageContaining("NUL character in sampleId");
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldRefuseALoneSurrogateThatUtf8WouldTurnIntoAQuestionMark(ShardWriterKind kind) {
        Map<String, byte[]> tensors = Map.of("image", new byte[12288], "label", new byte[8]);
        SampleRow loneInAttribute = new SampleRow("s", "dev", 0, tensors, Map.of("note", "a\uD800b"));
        SampleRow loneInDevice = new SampleRow("s", "dev\uDC00", 0, tensors, Map.of());
        SampleRow pairIsFine = new SampleRow("s\uD83D\uDE00", "dev", 0, tensors, Map.of("emoji", "\uD83D\uDE00"));

        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, id, List.of(loneInAttribute)))
                .hasMessageContaining("lone UTF-16 surrogate in attribute 'note'");
        assertThatThrownBy(() -> kind.create().write(tmp.resolve("x.h5"), spec, id, List.of(loneInDevice)))
                .hasMessageContaining("lone UTF-16 surrogate in deviceId");
        kind.create().write(tmp.resolve("x.h5"), spec, id, List.of(pairIsFine));
        org.assertj.core.api.Assertions.assertThat(new ShardReader().read(tmp.resolve("x.h5")).rows()).containsExactly(pairIsFine);
    }

    @Test
    void shouldRefuseToReadAnotherShardFormat() {
        Path file = tmp.resolve("future.h5");
        try (WritableHdfFile hdf = HdfFile.write(file)) {
            hdf.putAttribute("shardflow_format", 2);
        }

        assertThatThrownBy(() -> new ShardReader().read(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shardflow_format 2");
    }
}
