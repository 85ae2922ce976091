package io.shardflow.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

/**
 * The wire contract the Python edge SDK must match byte for byte (python/shardflow/edge): the writer
 * schema text it registers, and key and value of a few samples framed as the Apicurio 3 serializer
 * frames them (0x00, 4-byte content id, Avro binary; the serializer writes specific records with
 * {@link SpecificDatumWriter} and a binary encoder). The files are committed; this test fails when
 * the Java side drifts from them. Regenerate with {@code -Dshardflow.fixtures.write=true} and commit
 * the result only for an intended wire change. A real-registry comparison runs in
 * integration-tests ({@code PythonEdgeProducerTest}).
 */
class WireFixtureTest {

    /** Any id works offline: both sides frame with the one given here. */
    static final int CONTENT_ID = 7;
    private static final Path PYTHON = Path.of(System.getProperty("shardflow.repo", "..")).resolve("python");
    static final Path SCHEMA_FILE = PYTHON.resolve("shardflow/edge/sample_schema.avsc");
    static final Path RECORDS_FILE = PYTHON.resolve("tests/edge/fixtures/java_wire_records.txt");
    /**
     * What the Apicurio serializer registers (auto-register, its default reference handling): DType,
     * Tensor referring to DType, and the Sample referring to Tensor, each named types written by
     * name. The Python SDK registers these very texts with the same references, so the registry
     * returns both SDKs the same content id.
     */
    static final Path REGISTERED_DIR = PYTHON.resolve("shardflow/edge/registered");

    @Test
    void shouldMatchTheCommittedWireFixturesThePythonSdkIsTestedAgainst() throws Exception {
        String schema = Sample.getClassSchema().toString();
        StringBuilder records = new StringBuilder("# name key_hex value_hex, written by edge-client WireFixtureTest\n");
        for (Map.Entry<String, Sample> entry : cases().entrySet()) {
            Sample sample = entry.getValue();
            records.append(entry.getKey()).append(' ')
                    .append(HexFormat.of().formatHex(sample.getSampleId().getBytes(StandardCharsets.UTF_8))).append(' ')
                    .append(HexFormat.of().formatHex(frame(sample))).append('\n');
        }
        Map<String, String> registered = new LinkedHashMap<>();
        registered.put("io.shardflow.schemas.DType.avsc", DType.getClassSchema().toString());
        registered.put("io.shardflow.schemas.Tensor.avsc", Tensor.getClassSchema().toString(java.util.List.of(DType.getClassSchema()), false));
        registered.put("io.shardflow.schemas.Sample.avsc", Sample.getClassSchema().toString(java.util.List.of(Tensor.getClassSchema()), false));
        if (Boolean.getBoolean("shardflow.fixtures.write")) {
            Files.createDirectories(RECORDS_FILE.getParent());
            Files.createDirectories(REGISTERED_DIR);
            Files.writeString(SCHEMA_FILE, schema + "\n");
            Files.writeString(RECORDS_FILE, records.toString());
            for (Map.Entry<String, String> e : registered.entrySet()) {
                Files.writeString(REGISTERED_DIR.resolve(e.getKey()), e.getValue() + "\n");
            }
        }
        for (Map.Entry<String, String> e : registered.entrySet()) {
            assertThat(Files.readString(REGISTERED_DIR.resolve(e.getKey())).strip()).as(e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(Files.readString(SCHEMA_FILE).strip()).as("schema text in %s", SCHEMA_FILE).isEqualTo(schema);
        assertThat(Files.readString(RECORDS_FILE)).as("records in %s", RECORDS_FILE).isEqualTo(records.toString());
    }

    @Test
    void shouldEncodeTheSameSampleToTheSameBytesWhateverTheAttributeInsertionOrder() throws Exception {
        Sample one = base("order").attribute("b", "2").attribute("a", "1").attribute("c", "3").build();
        Sample two = base("order").attribute("c", "3").attribute("a", "1").attribute("b", "2").build();
        assertThat(frame(one)).isEqualTo(frame(two));
        assertThat(one.getAttributes().keySet()).containsExactly("a", "b", "c");
    }

    /** The cases python/tests/edge/test_wire_golden.py rebuilds from the same formulas. */
    static Map<String, Sample> cases() {
        Map<String, Sample> cases = new LinkedHashMap<>();
        float[] f32 = new float[6];
        for (int i = 0; i < f32.length; i++) {
            f32[i] = i * 0.25f - 1f;
        }
        double[] f64 = {0.0, 1.0 / 3.0, -2.0 / 3.0};
        cases.put("all_types", base("golden-1")
                .float32("f32", f32, 2, 3)
                .float64("f64", f64, 3)
                .int64("label", new long[] {7})
                .int32("i32", new int[] {0, -1000, -2000, -3000}, 4)
                .uint8("u8", new byte[] {0, 50, 100, (byte) 150, (byte) 200}, 5)
                .float16("f16", new float[] {0.1f, -2.5f, 65504f}, 3)
                .bfloat16("bf16", new float[] {1.1f, -3.3f}, 2)
                .uint16("u16", new int[] {65535, 1}, 2)
                .uint32("u32", new long[] {4_294_967_295L}, 1)
                .uint64("u64", new long[] {-1L}, 1)
                .raw("flags", DType.BOOL, new byte[] {1, 0, 1}, 3)
                .raw("i8", DType.INT8, new byte[] {-128, 127}, 2)
                .raw("i16", DType.INT16, new byte[] {0x34, 0x12, (byte) 0xff, (byte) 0xff}, 2)
                .string("caption", "h\u00e9llo \u2713 \uD83D\uDE00")
                .bytes("blob", new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
                .attribute("site", "lab").attribute("cam", "c1").attribute("\u00fcn\u00ef", "x").attribute("\uD83D\uDE00k", "e")
                .attribute("\uFF5Ak", "f")
                .build());
        cases.put("no_attributes", base("golden-2").float32("x", new float[] {3.5f}).build());
        byte[] big = new byte[64 * 1024];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + 7);
        }
        cases.put("large_uint8", base("golden-3").uint8("pixels", big, 256, 256).attribute("k", "v").build());
        return cases;
    }

    private static SampleBuilder base(String sampleId) {
        return SampleBuilder.forDataset("edge", "v1").id(sampleId).device("dev-1").producedAt(Instant.ofEpochMilli(1_700_000_000_123L));
    }

    static byte[] frame(Sample sample) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(CONTENT_ID).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<Sample>(Sample.getClassSchema()).write(sample, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
