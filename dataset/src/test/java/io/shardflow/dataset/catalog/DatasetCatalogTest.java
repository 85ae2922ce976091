package io.shardflow.dataset.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DatasetCatalogTest {

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final DatasetCatalog catalog = new DatasetCatalog(store);

    @Test
    void shouldCreateAndReadBackASpec() {
        DatasetSpec spec = Specs.imageSpec("cifar", "v1");

        catalog.create(spec);

        assertThat(store.keys()).containsExactly(DatasetLayout.specKey("cifar", "v1"));
        assertThat(catalog.spec("cifar", "v1")).contains(spec);
        assertThat(catalog.spec("cifar", "v2")).isEmpty();
    }

    @Test
    void shouldAcceptTheSameLayoutAgainAndKeepTheOriginal() {
        DatasetSpec original = Specs.imageSpec("cifar", "v1");
        DatasetSpec again = new DatasetSpec("cifar", "v1", original.tensors(), null, "someone else", "re-run",
                0, true, Instant.parse("2030-01-01T00:00:00Z"));
        catalog.create(original);

        catalog.create(again);

        assertThat(catalog.spec("cifar", "v1")).contains(original);
    }

    @Test
    void shouldRefuseAnotherLayoutUnderAnExistingVersion() {
        catalog.create(Specs.imageSpec("cifar", "v1"));
        DatasetSpec changed = Specs.spec("cifar", "v1", TensorSpec.parse("image:float32:3x64x64"), TensorSpec.parse("label:int64"));

        assertThatThrownBy(() -> catalog.create(changed))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cifar/v1 already exists with a different tensor layout")
                .hasMessageContaining("image:float32:3x64x64")
                .hasMessageContaining("new version");
        assertThat(catalog.spec("cifar", "v1")).contains(Specs.imageSpec("cifar", "v1"));
    }

    @Test
    void shouldListDatasetsAndVersionsSorted() {
        catalog.create(Specs.imageSpec("mnist", "v2"));
        catalog.create(Specs.imageSpec("cifar", "v1"));
        catalog.create(Specs.imageSpec("mnist", "v1"));
        store.putIfAbsent("datasets/README.txt", new byte[1]);

        assertThat(catalog.datasets()).containsExactly("cifar", "mnist");
        assertThat(catalog.versions("mnist")).containsExactly("v1", "v2");
        assertThat(catalog.versions("unknown")).isEmpty();
    }

    @Test
    void shouldRefuseNamesThatAreNotKeys() {
        assertThatThrownBy(() -> catalog.spec("../etc", "v1")).hasMessageContaining("dataset name '../etc'");
        assertThatThrownBy(() -> catalog.versions("a/b")).hasMessageContaining("dataset name 'a/b'");
    }
}
