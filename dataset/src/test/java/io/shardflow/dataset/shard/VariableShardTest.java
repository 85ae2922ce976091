package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The new dtypes, string/bytes and free-shape tensors, and compression: through both writers, read by jHDF, h5py and PyTables. */
class VariableShardTest {

    private static final TensorSpec[] TENSORS = EveryTypeRows.TENSORS;

    @TempDir
    Path tmp;

    static Stream<Arguments> everyWriterAndCompression() {
        return Arrays.stream(ShardWriterKind.values()).flatMap(kind -> Stream.of("none", "gzip:1", "gzip:9", "lzf")
                .map(codec -> Arguments.of(kind, codec)));
    }

    @ParameterizedTest
    @MethodSource("everyWriterAndCompression")
    void shouldRoundTripEveryNewTypeThroughJhdfAndH5py(ShardWriterKind kind, String codec) throws Exception {
        DatasetSpec spec = Specs.spec("d", "v1", TENSORS).withCompression(Compression.parse(codec));
        List<SampleRow> rows = EveryTypeRows.rows(spec, 40, new Random(codec.hashCode()));
        Path file = tmp.resolve("shard.h5");

        kind.create().write(file, spec, new ShardId("d", "v1", 0, 1), rows);

        assertThat(new ShardReader().read(file).rows()).containsExactlyElementsOf(rows);
        JsonNode h5py = PythonShardDump.dump("h5py", file, tmp);
        assertSameRows(h5py, rows);
        assertThat(h5py.at("/tensors/half/numpy").asText()).isEqualTo("float16");
        assertThat(h5py.at("/tensors/brain/numpy").asText()).isEqualTo("uint16");
        assertThat(h5py.at("/tensors/brain/dtype").asText()).isEqualTo("bfloat16");
        assertThat(h5py.at("/tensors/u64/numpy").asText()).isEqualTo("uint64");
        String expectedFilter = codec.equals("none") ? "null" : codec.startsWith("gzip") ? "gzip" : "lzf";
        assertThat(h5py.at("/tensors/u16/filters").asText()).isEqualTo(expectedFilter);
        assertThat(h5py.at("/tensors/boxes/filters").asText()).isEqualTo(expectedFilter);
        if (!codec.equals("lzf")) {
            // PyTables reads LZF only where it was built with it; Debian's python3-tables is not (FORMAT.md).
            assertSameRows(PythonShardDump.dump("tables", file, tmp), rows);
        }
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldStoreEmptyVariableRows(ShardWriterKind kind) {
        DatasetSpec spec = Specs.spec("d", "v1", TensorSpec.parse("caption:string"), TensorSpec.parse("boxes:float32:?x4"));
        List<SampleRow> rows = List.of(
                new SampleRow("a", "dev", 1, Map.of("caption", new byte[0], "boxes", new byte[0]), Map.of(),
                        Map.of("boxes", List.of(0, 4))),
                new SampleRow("b", "dev", 2, Map.of("caption", new byte[0], "boxes", new byte[0]), Map.of(),
                        Map.of("boxes", List.of(0, 4))));
        Path file = tmp.resolve("empty.h5");

        kind.create().write(file, spec, new ShardId("d", "v1", 0, 1), rows);

        assertThat(new ShardReader().read(file).rows()).containsExactlyElementsOf(rows);
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldRefuseARowOverItsMaximumOrWithAWrongFixedDimension(ShardWriterKind kind) {
        DatasetSpec spec = Specs.spec("d", "v1", TensorSpec.parse("boxes:float32:?<=2x4"));
        SampleRow tooMany = new SampleRow("a", "dev", 1, Map.of("boxes", new byte[3 * 4 * 4]), Map.of(), Map.of("boxes", List.of(3, 4)));
        SampleRow wrongWidth = new SampleRow("b", "dev", 1, Map.of("boxes", new byte[2 * 5 * 4]), Map.of(), Map.of("boxes", List.of(2, 5)));
        ShardId id = new ShardId("d", "v1", 0, 1);

        assertThatThrownBy(() -> kind.create().write(tmp.resolve("a.h5"), spec, id, List.of(tooMany)))
                .hasMessageContaining("at most 2");
        assertThatThrownBy(() -> kind.create().write(tmp.resolve("b.h5"), spec, id, List.of(wrongWidth)))
                .hasMessageContaining("spec says ?<=2x4");
    }

    private static void assertSameRows(JsonNode dump, List<SampleRow> rows) {
        for (TensorSpec tensor : TENSORS) {
            JsonNode stored = dump.at("/tensors/" + tensor.name());
            for (int i = 0; i < rows.size(); i++) {
                byte[] bytes = Base64.getDecoder().decode(stored.at("/rows/" + i).asText());
                assertThat(bytes).as("%s row %d", tensor.name(), i).isEqualTo(rows.get(i).tensors().get(tensor.name()));
                if (tensor.hasFreeDimension()) {
                    List<Integer> shape = new ArrayList<>();
                    stored.at("/shapes/" + i).forEach(d -> shape.add(d.asInt()));
                    assertThat(shape).isEqualTo(rows.get(i).shapes().get(tensor.name()));
                }
            }
        }
    }
}
