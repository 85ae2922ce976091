package io.shardflow.app.spec;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.spec.DatasetSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Specs read from the object-store catalog. A spec never changes once created, so hits are kept
 * until evicted by size. Misses, and whether a dataset exists at all, are kept for
 * {@code missTtl}: a flood of records for an unknown dataset is then one catalog read per name and
 * TTL, not one per record, yet a dataset created later is picked up. Every cache is bounded to
 * {@code maxEntries}, so a flood of ever-new names cannot grow memory either.
 */
public final class CatalogSpecSource implements SpecSource {

    private final DatasetCatalog catalog;
    private final Cache<String, DatasetSpec> found;
    private final Cache<String, Boolean> missed;
    private final Cache<String, Boolean> exists;

    public CatalogSpecSource(DatasetCatalog catalog, Clock clock, Duration missTtl, long maxEntries) {
        this.catalog = catalog;
        Ticker ticker = () -> TimeUnit.MILLISECONDS.toNanos(clock.millis());
        this.found = Caffeine.newBuilder().maximumSize(maxEntries).executor(Runnable::run).build();
        this.missed = Caffeine.newBuilder().maximumSize(maxEntries).expireAfterWrite(missTtl).ticker(ticker)
                .executor(Runnable::run).build();
        this.exists = Caffeine.newBuilder().maximumSize(maxEntries).expireAfterWrite(missTtl).ticker(ticker)
                .executor(Runnable::run).build();
    }

    @Override
    public Optional<DatasetSpec> find(String dataset, String version) {
        String key = dataset + '\u0000' + version;
        DatasetSpec spec = found.getIfPresent(key);
        if (spec != null) {
            return Optional.of(spec);
        }
        if (missed.getIfPresent(key) != null) {
            return Optional.empty();
        }
        Optional<DatasetSpec> loaded = catalog.spec(dataset, version);
        loaded.ifPresentOrElse(s -> found.put(key, s), () -> missed.put(key, Boolean.TRUE));
        return loaded;
    }

    @Override
    public boolean datasetExists(String dataset) {
        return exists.get(dataset, name -> !catalog.versions(name).isEmpty());
    }

    /** Names currently remembered as unknown; for tests of the bound. */
    long rememberedMisses() {
        missed.cleanUp();
        return missed.estimatedSize();
    }
}
