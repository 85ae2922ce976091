package io.shardflow.dataset.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.object.datatype.FixedPoint;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class ShardRoundTripTest {

    @TempDir
    Path tmp;

    private final ShardReader reader = new ShardReader();

    static Stream<Arguments> everyWriterAndDtype() {
        return Arrays.stream(ShardWriterKind.values()).flatMap(kind -> Arrays.stream(DType.values())
                .filter(dtype -> !dtype.variableLength()).map(dtype -> Arguments.of(kind, dtype)));
    }

    @ParameterizedTest
    @MethodSource("everyWriterAndDtype")
    void shouldRoundTripEveryDtypeInScalarVectorAndCubeShapes(ShardWriterKind kind, DType dtype) {
        DatasetSpec spec = Specs.spec("d", "v1",
                new TensorSpec("s", dtype, List.of()),
                new TensorSpec("vec", dtype, List.of(5)),
                new TensorSpec("cube", dtype, List.of(2, 3, 4)));
        ShardId id = new ShardId("d", "v1", 2, 7);
        List<SampleRow> rows = randomRows(spec, 7, new Random(dtype.ordinal()));
        Path file = tmp.resolve("shard.h5");

        kind.create().write(file, spec, id, rows);
        ShardContents contents = reader.read(file);

        assertThat(contents.rows()).containsExactlyElementsOf(rows);
        assertThat(contents.dataset()).isEqualTo("d");
        assertThat(contents.version()).isEqualTo("v1");
        assertThat(contents.shardId()).isEqualTo(id.toString());
        assertThat(contents.specFingerprint()).isEqualTo(spec.fingerprint());
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldStoreEachTensorAsAnNByShapeDatasetTaggedWithItsDtype(ShardWriterKind kind) {
        DatasetSpec spec = Specs.spec("d", "v1", TensorSpec.parse("image:uint8:2x3x4"), TensorSpec.parse("label:int64"),
                TensorSpec.parse("ok:bool"));
        List<SampleRow> rows = randomRows(spec, 5, new Random(1));
        Path file = tmp.resolve("shard.h5");

        kind.create().write(file, spec, new ShardId("d", "v1", 0, 0), rows);

        try (HdfFile hdf = new HdfFile(file)) {
            Dataset image = hdf.getDatasetByPath("tensors/image");
            assertThat(image.getDimensions()).containsExactly(5, 2, 3, 4);
            assertThat(((FixedPoint) image.getDataType()).isSigned()).isFalse();
            assertThat(image.getAttribute("shardflow_dtype").getData()).isEqualTo("uint8");
            Dataset label = hdf.getDatasetByPath("tensors/label");
            assertThat(label.getDimensions()).containsExactly(5);
            assertThat(label.getData()).isInstanceOf(long[].class);
            Dataset ok = hdf.getDatasetByPath("tensors/ok");
            assertThat(ok.getAttribute("shardflow_dtype").getData()).isEqualTo("bool");
            assertThat(((FixedPoint) ok.getDataType()).getSize()).isEqualTo(1);
            assertThat(hdf.getDatasetByPath("produced_at").getDimensions()).containsExactly(5);
            assertThat(hdf.getDatasetByPath("sample_id").getData()).isEqualTo(new String[] {"s-0", "s-1", "s-2", "s-3", "s-4"});
            assertThat(((Number) hdf.getAttribute("shardflow_format").getData()).intValue()).isEqualTo(1);
            assertThat(((Number) hdf.getAttribute("sample_count").getData()).longValue()).isEqualTo(5);
            assertThat(hdf.getAttribute("shard_id").getData()).isEqualTo("d/v1/lane-00000/shard-000000000000");
            assertThat(hdf.getAttribute("spec_fingerprint").getData()).isEqualTo(spec.fingerprint());
        }
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldKeepExtremeValuesAndNaNPayloadsBitForBit(ShardWriterKind kind) {
        DatasetSpec spec = Specs.spec("d", "v1",
                TensorSpec.parse("f32:float32:9"), TensorSpec.parse("f64:float64:7"), TensorSpec.parse("i64:int64:4"),
                TensorSpec.parse("i32:int32:4"), TensorSpec.parse("i16:int16:4"), TensorSpec.parse("i8:int8:4"),
                TensorSpec.parse("u8:uint8:4"), TensorSpec.parse("b:bool:2"));
        Map<String, byte[]> tensors = new HashMap<>();
        tensors.put("f32", TensorBytes.float32(Float.NaN, Float.intBitsToFloat(0x7fa00001), Float.intBitsToFloat(0xffc12345), -0.0f,
                Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE));
        tensors.put("f64", TensorBytes.float64(Double.NaN, Double.longBitsToDouble(0x7ff0000000000001L), -0.0,
                Double.POSITIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE));
        tensors.put("i64", TensorBytes.int64(Long.MIN_VALUE, Long.MAX_VALUE, -1, 0));
        tensors.put("i32", TensorBytes.int32(Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0));
        tensors.put("i16", TensorBytes.int16(Short.MIN_VALUE, Short.MAX_VALUE, (short) -1, (short) 0));
        tensors.put("i8", TensorBytes.bytes(-128, 127, -1, 0));
        tensors.put("u8", TensorBytes.bytes(0, 255, 128, 1));
        tensors.put("b", TensorBytes.bytes(0, 1));
        SampleRow row = new SampleRow("extreme", "dev", Long.MIN_VALUE, tensors, Map.of());
        Path file = tmp.resolve("shard.h5");

        kind.create().write(file, spec, new ShardId("d", "v1", 0, 1), List.of(row));

        assertThat(reader.read(file).rows()).containsExactly(row);
    }

    @ParameterizedTest
    @EnumSource(ShardWriterKind.class)
    void shouldRoundTripEmptyAndUnicodeStrings(ShardWriterKind kind) {
        DatasetSpec spec = Specs.spec("d", "v1", TensorSpec.parse("x:int8"));
        List<SampleRow> allEmpty = List.of(
                new SampleRow("", "", 0, Map.of("x", new byte[] {1}), Map.of()),
                new SampleRow("", "", 1, Map.of("x", new byte[] {2}), Map.of()));
        List<SampleRow> mixed = List.of(
                new SampleRow("a", "", 5, Map.of("x", new byte[] {1}), Map.of("k", "")),
                new SampleRow("b-ü-日本", "gerät-😀", -5, Map.of("x", new byte[] {2}),
                        Map.of("z", "last", "a", "first \"quoted\"\nnewline", "ключ", "значение")));

        kind.create().write(tmp.resolve("empty.h5"), spec, new ShardId("d", "v1", 0, 2), allEmpty);
        kind.create().write(tmp.resolve("mixed.h5"), spec, new ShardId("d", "v1", 0, 3), mixed);

        assertThat(reader.read(tmp.resolve("empty.h5")).rows()).containsExactlyElementsOf(allEmpty);
        assertThat(reader.read(tmp.resolve("mixed.h5")).rows()).containsExactlyElementsOf(mixed);
    }

    static List<SampleRow> randomRows(DatasetSpec spec, int n, Random random) {
        List<SampleRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, byte[]> tensors = new HashMap<>();
            for (TensorSpec tensor : spec.tensors()) {
                byte[] bytes = new byte[(int) tensor.byteLength()];
                if (tensor.dtype() == DType.BOOL) {
                    for (int k = 0; k < bytes.length; k++) {
                        bytes[k] = (byte) random.nextInt(2);
                    }
                } else {
                    // Random bits: for floats this includes NaNs with arbitrary payloads and subnormals.
                    random.nextBytes(bytes);
                }
                tensors.put(tensor.name(), bytes);
            }
            rows.add(new SampleRow("s-" + i, "device-" + (i % 3), 1_700_000_000_000L + i * 1000L, tensors,
                    i % 2 == 0 ? Map.of() : Map.of("site", "lab-" + i, "camera", "front")));
        }
        return rows;
    }
}
