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
import org.junit.jupiter.api.Assumptions;

/**
 * The set-up every integration test shares: a real stack (broker, registry, S3 server) in
 * {@code <work>/stack}, its endpoints, a client of its object store and the dataset catalog on it.
 * The servers run as local processes, or as containers ({@link StackSource}). Closing it stops them.
 */
public final class TestStack implements AutoCloseable {

    private final LocalStack servers;
    private final AutoCloseable running;
    private final StackEndpoints endpoints;
    private final S3ObjectStore store;

    private TestStack(LocalStack servers, AutoCloseable running, StackEndpoints endpoints) {
        this.servers = servers;
        this.running = running;
        this.endpoints = endpoints;
        this.store = S3ObjectStore.connect(endpoints.s3Settings());
    }

    /** A stack with the default S3 server (S3Proxy). */
    public static TestStack start(Path work) {
        return start(work, S3Kind.S3PROXY);
    }

    public static TestStack start(Path work, S3Kind s3) {
        LocalStack servers = LocalStack.start(StackConfig.defaults(work.resolve("stack")).withS3Kind(s3));
        return new TestStack(servers, servers, StackEndpoints.of(servers));
    }

    /**
     * A stack from {@code source}; containers always run MinIO. Where no Docker engine answers, a
     * container stack aborts the test with that reason (reported as skipped): the only case it does
     * not run. Under scripts/test.sh it first waits for the images stage ({@link ImagesGate}).
     */
    public static TestStack start(Path work, S3Kind s3, StackSource source) {
        if (source == StackSource.LOCAL_PROCESSES) {
            return start(work, s3);
        }
        ImagesGate.awaitImages();
        Assumptions.assumeTrue(ContainerStack.engineAvailable(),
                "no Docker engine answers: start one with scripts/docker-engine.sh to run the container stack");
        ContainerStack containers = ContainerStack.start();
        return new TestStack(null, containers, containers.endpoints());
    }

    /** The local server processes, for tests that kill or restart one; not available for containers. */
    public LocalStack servers() {
        if (servers == null) {
            throw new IllegalStateException("this stack runs in containers, not as local processes");
        }
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
        try {
            running.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the stack", e);
        }
    }
}
