package io.shardflow.ingest.spec;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.spec.DatasetSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Specs read from the object-store catalog. A spec never changes once created, so hits are cached
 * for good; misses are cached for {@code missTtl} so a flood of records for an unknown dataset does
 * not become a flood of object-store reads, yet a dataset created later is picked up.
 */
public final class CatalogSpecSource implements SpecSource {

    private final DatasetCatalog catalog;
    private final Clock clock;
    private final Duration missTtl;
    private final Map<String, DatasetSpec> found = new ConcurrentHashMap<>();
    private final Map<String, Long> missedUntil = new ConcurrentHashMap<>();

    public CatalogSpecSource(DatasetCatalog catalog, Clock clock, Duration missTtl) {
        this.catalog = catalog;
        this.clock = clock;
        this.missTtl = missTtl;
    }

    @Override
    public Optional<DatasetSpec> find(String dataset, String version) {
        String key = dataset + '\u0000' + version;
        DatasetSpec spec = found.get(key);
        if (spec != null) {
            return Optional.of(spec);
        }
        long now = clock.millis();
        Long until = missedUntil.get(key);
        if (until != null && now < until) {
            return Optional.empty();
        }
        Optional<DatasetSpec> loaded = catalog.spec(dataset, version);
        loaded.ifPresentOrElse(s -> found.put(key, s), () -> missedUntil.put(key, now + missTtl.toMillis()));
        return loaded;
    }

    @Override
    public boolean datasetExists(String dataset) {
        return !catalog.versions(dataset).isEmpty();
    }
}
