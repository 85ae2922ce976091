package io.shardflow.gateway.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import io.shardflow.schemas.Sample;

/**
 * Whatever bytes arrive, a parser either returns samples or refuses the request with a
 * {@link BadRequest} (a 4xx): no other exception, which would be a 500, and no unbounded allocation.
 */
class HostileBodiesPropertyTest {

    private static final RequestContext CONTEXT = new RequestContext("cams", "v1", "phone-1", Instant.EPOCH, 50);

    static {
        AvroSamples.limitAvroAllocations(1 << 20);
    }

    private final JsonSamples json = new JsonSamples(50 * 128 + 64);
    private final AvroSamples avro = new AvroSamples();
    private final MultipartSamples multipart = new MultipartSamples(json);

    @Property(tries = 500)
    void shouldAnswerAnyJsonBodyWithSamplesOrA4xx(@ForAll("jsonish") String body) {
        assertOnlyBadRequest(() -> json.parse(body.getBytes(StandardCharsets.UTF_8), CONTEXT));
    }

    @Property(tries = 500)
    void shouldAnswerAnyAvroBodyWithSamplesOrA4xx(@ForAll("avroish") byte[] body) {
        assertOnlyBadRequest(() -> avro.parse(body, CONTEXT));
    }

    @Property(tries = 300)
    void shouldAnswerAnyMultipartBodyWithSamplesOrA4xx(@ForAll("multipartish") String body) {
        assertOnlyBadRequest(() -> multipart.parse(body.getBytes(StandardCharsets.UTF_8), "multipart/form-data; boundary=XyZ", CONTEXT));
    }

    private static void assertOnlyBadRequest(Runnable parse) {
        try {
            parse.run();
        } catch (BadRequest e) {
            assertThat(e.status()).isBetween(400, 499);
        }
    }

    @Provide
    Arbitrary<String> jsonish() {
        Arbitrary<String> fragments = Arbitraries.of("{", "}", "[", "]", ",", ":", "\"sample_id\"", "\"a\"", "\"tensors\"", "\"samples\"",
                "\"dtype\"", "\"int64\"", "\"data\"", "\"AAAA\"", "\"=\"", "\"shape\"", "[1,2]", "-1", "1e400", "null", "true",
                "\"attributes\"", "\"\\u0000\"", "\"\\ud800\"", "\"produced_at\"", "\"part\"", "\"device_id\"");
        return Arbitraries.oneOf(fragments.list().ofMaxSize(40).map(list -> String.join("", list)), Arbitraries.strings().ofMaxLength(200));
    }

    @Provide
    Arbitrary<byte[]> avroish() {
        Arbitrary<byte[]> noise = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
        Arbitrary<byte[]> mutated = Arbitraries.integers().between(0, 200).flatMap(cut -> Arbitraries.bytes().map(flip -> {
            byte[] valid = validAvro();
            byte[] copy = java.util.Arrays.copyOf(valid, Math.min(valid.length, cut + 1));
            copy[cut % copy.length] ^= flip;
            return copy;
        }));
        return Arbitraries.oneOf(noise, mutated);
    }

    @Provide
    Arbitrary<String> multipartish() {
        Arbitrary<String> parts = Arbitraries.of("--XyZ\r\n", "--XyZ--\r\n", "Content-Disposition: form-data; name=\"metadata\"\r\n\r\n",
                "Content-Disposition: form-data; name=\"img\"; filename=\"a.jpg\"\r\n\r\n", "{\"sample_id\":\"a\",\"tensors\":{\"t\":{\"dtype\":\"bytes\",\"part\":\"img\"}}}",
                "\r\n", "garbage", "Content-Disposition: form-data\r\n\r\n", "Content-Type: application/json\r\n");
        return parts.list().ofMaxSize(20).map(list -> String.join("", list));
    }

    private static byte[] validAvro() {
        Sample sample = Sample.newBuilder().setDataset("cams").setVersion("v1").setSampleId("a").setDeviceId("").setProducedAt(Instant.EPOCH)
                .setTensors(java.util.List.of()).setAttributes(java.util.Map.of("k", "v")).build();
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new SpecificDatumWriter<>(Sample.class).write(sample, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
