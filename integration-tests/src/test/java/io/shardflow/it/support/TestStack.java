package io.shardflow.it.support;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;

/**
 * The set-up every integration test shares: a real local stack (broker, registry, S3 server as
 * processes) in {@code <work>/stack}, its endpoints, a client of its object store and the dataset
 * catalog on it. Closing it stops the servers.
 */
public final class TestStack implements AutoCloseable {

    private final LocalStack servers;
    private final StackEndpoints endpoints;
    private final S3ObjectStore store;

    private TestStack(LocalStack servers) {
        this.servers = servers;
        this.endpoints = StackEndpoints.of(servers);
        this.store = S3ObjectStore.connect(endpoints.s3Settings());
    }

    /** A stack with the default S3 server (S3Proxy). */
    public static TestStack start(Path work) {
        return start(work, S3Kind.S3PROXY);
    }

    public static TestStack start(Path work, S3Kind s3) {
        return new TestStack(LocalStack.start(StackConfig.defaults(work.resolve("stack")).withS3Kind(s3)));
    }

    public LocalStack servers() {
        return servers;
    }

    public StackEndpoints endpoints() {
        return endpoints;
    }

    public S3ObjectStore store() {
        return store;
    }

    public DatasetCatalog catalog() {
        return new DatasetCatalog(store);
    }

    /**
     * Creates a dataset version whose tensors are given as {@code name:dtype[:shape]} and whose label
     * tensor is {@code label}.
     */
    public DatasetSpec createDataset(String name, String version, String description, String... tensors) {
        DatasetSpec spec = spec(name, version, description, tensors);
        catalog().create(spec);
        return spec;
    }

    /** The spec {@link #createDataset} creates, without creating it. */
    public static DatasetSpec spec(String name, String version, String description, String... tensors) {
        return new DatasetSpec(name, version, Arrays.stream(tensors).map(TensorSpec::parse).toList(), "label", "it",
                description, 0, false, Instant.now());
    }

    @Override
    public void close() {
        servers.close();
    }
}
