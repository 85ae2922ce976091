package io.shardflow.dataset.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DatasetSpecTest {

    private static final List<TensorSpec> TENSORS = List.of(TensorSpec.parse("image:float32:3x32x32"), TensorSpec.parse("label:int64"));

    @Test
    void shouldFingerprintTheDocumentedCanonicalLayout() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");

        assertThat(spec.canonicalLayout()).isEqualTo("image:float32:3x32x32\nlabel:int64:\n");
        // sha256 of the line above, computed with `printf ... | sha256sum`: pins the rule for other languages.
        assertThat(spec.fingerprint()).isEqualTo("7cbfe05a04fe34fc92e46713945002856e3094f7db9e1b78829cb8c99c89e9a6");
    }

    @Test
    void shouldIgnoreDescriptiveFieldsInTheFingerprint() {
        DatasetSpec a = Specs.imageSpec("cifar", "v1");
        DatasetSpec b = new DatasetSpec("other", "v9", TENSORS, null, "someone else", "other words", 99, true,
                Instant.parse("2030-01-01T00:00:00Z"));

        assertThat(b.fingerprint()).isEqualTo(a.fingerprint());
    }

    @Test
    void shouldChangeTheFingerprintWithTheLayout() {
        String base = Specs.imageSpec("cifar", "v1").fingerprint();

        assertThat(Specs.spec("cifar", "v1", TensorSpec.parse("image:float32:3x32x33"), TensorSpec.parse("label:int64")).fingerprint())
                .isNotEqualTo(base);
        assertThat(Specs.spec("cifar", "v1", TensorSpec.parse("image:float64:3x32x32"), TensorSpec.parse("label:int64")).fingerprint())
                .isNotEqualTo(base);
        assertThat(Specs.spec("cifar", "v1", TensorSpec.parse("label:int64"), TensorSpec.parse("image:float32:3x32x32")).fingerprint())
                .isNotEqualTo(base);
    }

    @Test
    void shouldSumSampleBytesAndFindTensors() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");

        assertThat(spec.sampleByteLength()).isEqualTo(3 * 32 * 32 * 4 + 8);
        assertThat(spec.tensor("label")).hasValueSatisfying(t -> assertThat(t.dtype()).isEqualTo(DType.INT64));
        assertThat(spec.tensor("nope")).isEmpty();
    }

    @Test
    void shouldValidateNamesTensorsAndLabel() {
        assertThatThrownBy(() -> new DatasetSpec("bad/name", "v1", TENSORS, null, "", "", 0, false, Specs.CREATED_AT))
                .hasMessageContaining("dataset name 'bad/name'");
        assertThatThrownBy(() -> new DatasetSpec("ok", ".hidden", TENSORS, null, "", "", 0, false, Specs.CREATED_AT))
                .hasMessageContaining("dataset version '.hidden'");
        assertThatThrownBy(() -> new DatasetSpec("ok", "v1", List.of(), null, "", "", 0, false, Specs.CREATED_AT))
                .hasMessageContaining("no tensors");
        assertThatThrownBy(() -> new DatasetSpec("ok", "v1", List.of(TENSORS.get(0), TENSORS.get(0)), null, "", "", 0, false,
                Specs.CREATED_AT)).hasMessageContaining("'image' twice");
        assertThatThrownBy(() -> new DatasetSpec("ok", "v1", TENSORS, "target", "", "", 0, false, Specs.CREATED_AT))
                .hasMessageContaining("labelTensor 'target'");
        assertThatThrownBy(() -> new DatasetSpec("ok", "v1", TENSORS, null, "", "", -1, false, Specs.CREATED_AT))
                .hasMessageContaining("maxSampleBytes");
    }

    @Test
    void shouldStoreMissingAuthorAndDescriptionAsEmpty() {
        DatasetSpec spec = new DatasetSpec("ok", "v1", TENSORS, null, null, null, 0, false, Specs.CREATED_AT);

        assertThat(spec.author()).isEmpty();
        assertThat(spec.description()).isEmpty();
    }
}
