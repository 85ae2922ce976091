package io.shardflow.cli;

import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.reader.LabelCounter;
import java.util.Map;
import java.util.Optional;

/** Samples per label value for {@code dataset show}, through a scratch cache removed afterwards. */
final class DatasetLabels {

    private static final long CACHE_BYTES = 512L << 20;

    private DatasetLabels() {
    }

    static Optional<Map<String, Long>> count(ObjectStore store, DatasetSpec spec, Snapshot snapshot) {
        if (spec.labelTensor() == null) {
            return Optional.empty();
        }
        try (DatasetScratch scratch = new DatasetScratch("labels")) {
            return new LabelCounter(store, scratch.dir(), CACHE_BYTES).count(spec, snapshot);
        }
    }
}
