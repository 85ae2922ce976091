package io.shardflow.app.spec;

import io.shardflow.dataset.spec.DatasetSpec;
import java.util.Optional;

/** Where the ingest path looks up the spec a sample must match. */
public interface SpecSource {

    Optional<DatasetSpec> find(String dataset, String version);

    /** Whether any version of {@code dataset} exists; only asked to word a rejection precisely. */
    boolean datasetExists(String dataset);
}
