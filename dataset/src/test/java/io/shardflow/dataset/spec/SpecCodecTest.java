package io.shardflow.dataset.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpecCodecTest {

    private final SpecCodec codec = new SpecCodec();

    @Test
    void shouldRoundTripEveryField() {
        DatasetSpec spec = new DatasetSpec("cifar", "v1",
                List.of(TensorSpec.parse("image:uint8:3x32x32"), TensorSpec.parse("label:int64"), TensorSpec.parse("mask:bool:4")),
                "label", "Ada \"quoted\" Lovelace", "multi\nline ü", 1 << 20, true, Instant.parse("2026-05-06T07:08:09.123Z"));

        assertThat(codec.fromJson(codec.toJson(spec))).isEqualTo(spec);
    }

    @Test
    void shouldWriteTheSameBytesInAFixedFieldOrder() {
        byte[] json = codec.toJson(Specs.imageSpec("cifar", "v1"));

        assertThat(codec.toJson(Specs.imageSpec("cifar", "v1"))).isEqualTo(json);
        assertThat(new String(json, StandardCharsets.UTF_8)).isEqualTo("""
                {
                  "formatVersion" : 1,
                  "name" : "cifar",
                  "version" : "v1",
                  "fingerprint" : "7cbfe05a04fe34fc92e46713945002856e3094f7db9e1b78829cb8c99c89e9a6",
                  "tensors" : [ {
                    "name" : "image",
                    "dtype" : "float32",
                    "shape" : [ 3, 32, 32 ]
                  }, {
                    "name" : "label",
                    "dtype" : "int64",
                    "shape" : [ ]
                  } ],
                  "labelTensor" : "label",
                  "author" : "tests",
                  "description" : "fixture",
                  "maxSampleBytes" : 0,
                  "allowNonFinite" : false,
                  "createdAt" : "2026-01-02T03:04:05Z"
                }""");
    }

    @Test
    void shouldIgnoreUnknownFieldsAndAcceptAMissingFingerprint() {
        String json = """
                {"formatVersion": 1, "name": "d", "version": "v2", "futureField": {"x": [1, 2]},
                 "tensors": [{"name": "x", "dtype": "FLOAT64", "shape": [2], "unit": "m"}],
                 "maxSampleBytes": 0, "allowNonFinite": false, "createdAt": "2026-01-01T00:00:00Z"}""";

        DatasetSpec spec = codec.fromJson(json.getBytes(StandardCharsets.UTF_8));

        assertThat(spec.tensors()).containsExactly(TensorSpec.parse("x:float64:2"));
        assertThat(spec.labelTensor()).isNull();
        assertThat(spec.author()).isEmpty();
    }

    @Test
    void shouldRefuseAnotherFormatVersion() {
        String json = jsonOf(Specs.imageSpec("d", "v1")).replace("\"formatVersion\" : 1", "\"formatVersion\" : 2");

        assertThatThrownBy(() -> codec.fromJson(json.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("formatVersion 2");
    }

    @Test
    void shouldRefuseAFingerprintThatDisagreesWithTheTensors() {
        String json = jsonOf(Specs.imageSpec("d", "v1")).replace("[ 3, 32, 32 ]", "[ 3, 32, 31 ]");

        assertThatThrownBy(() -> codec.fromJson(json.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("stores fingerprint");
    }

    @Test
    void shouldNameTheMissingField() {
        assertThatThrownBy(() -> codec.fromJson("{\"formatVersion\": 1}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("'tensors'");
        assertThatThrownBy(() -> codec.fromJson("not json".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("not valid JSON");
    }

    private String jsonOf(DatasetSpec spec) {
        return new String(codec.toJson(spec), StandardCharsets.UTF_8);
    }
}
