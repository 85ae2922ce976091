package io.shardflow.dataset.catalog;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Names;
import io.shardflow.dataset.spec.SpecCodec;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Datasets and their versions, each defined by its {@code spec.json}. A spec is written once and
 * never changes: a new layout needs a new version, because existing shards and snapshots are
 * immutable and must stay readable with the spec they were written under.
 */
public final class DatasetCatalog {

    private static final Logger log = LoggerFactory.getLogger(DatasetCatalog.class);

    private final ObjectStore store;
    private final SpecCodec codec = new SpecCodec();

    public DatasetCatalog(ObjectStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Creates the version. Creating it again with the same tensor layout is a no-op (the stored
     * spec, with its original author, description and date, is kept); a different layout is
     * refused with {@link IllegalStateException}.
     */
    public void create(DatasetSpec spec) {
        String key = DatasetLayout.specKey(spec.name(), spec.version());
        if (store.putIfAbsent(key, codec.toJson(spec)) == PutOutcome.CREATED) {
            log.info("Created dataset {}/{} with layout {}", spec.name(), spec.version(), spec.fingerprint());
            return;
        }
        DatasetSpec existing = spec(spec.name(), spec.version()).orElseThrow(() -> new IllegalStateException(
                "dataset " + spec.name() + "/" + spec.version() + ": the store says " + key + " exists but it cannot be read"));
        if (!existing.fingerprint().equals(spec.fingerprint())) {
            throw new IllegalStateException("dataset " + spec.name() + "/" + spec.version()
                    + " already exists with a different tensor layout [" + existing.canonicalLayout().strip().replace('\n', ' ')
                    + "] vs requested [" + spec.canonicalLayout().strip().replace('\n', ' ')
                    + "]; create a new version instead");
        }
        log.info("Dataset {}/{} already exists with the same layout; nothing to do", spec.name(), spec.version());
    }

    public Optional<DatasetSpec> spec(String name, String version) {
        return store.get(DatasetLayout.specKey(name, version)).map(codec::fromJson);
    }

    /** Dataset names, sorted. */
    public List<String> datasets() {
        return childNames(DatasetLayout.datasetsPrefix());
    }

    /** Versions of a dataset, sorted; empty if the dataset does not exist. */
    public List<String> versions(String name) {
        return childNames(DatasetLayout.versionsPrefix(Names.requireDatasetName("dataset name", name)));
    }

    private List<String> childNames(String prefix) {
        return store.listPrefixes(prefix).stream()
                .filter(p -> p.startsWith(prefix) && p.endsWith("/"))
                .map(p -> p.substring(prefix.length(), p.length() - 1))
                .filter(n -> Names.DATASET_NAME.matcher(n).matches())
                .sorted()
                .toList();
    }
}
