package io.shardflow.stack;

import io.shardflow.dataset.store.S3Settings;
import java.nio.file.Path;
import java.util.Optional;

/** The endpoints of a running stack, from the live object or from its state file. */
public record StackEndpoints(String bootstrapServers, String registryUrl, String s3Endpoint, String s3AccessKey,
                             String s3SecretKey, String bucket, Path clientConfigDir, Path caCertificate) {

    /** Never prints the secret key. */
    @Override
    public String toString() {
        return "StackEndpoints[kafka=" + bootstrapServers + ", registry=" + registryUrl + ", s3=" + s3Endpoint + ", bucket="
                + bucket + ", secure=" + (clientConfigDir != null) + "]";
    }

    public static StackEndpoints of(LocalStack stack) {
        return of(stack.state());
    }

    /** The SCRAM client properties file a secure stack wrote for {@code principal}; empty for a plain stack. */
    public Optional<Path> clientConfig(StackPrincipal principal) {
        return Optional.ofNullable(clientConfigDir).map(principal::scramClientConfig);
    }

    /** What the CLI publishes as: the edge principal, which may only write samples. */
    public Optional<Path> edgeClientConfig() {
        return clientConfig(StackPrincipal.EDGE);
    }

    /** The object-store settings of this stack; an https endpoint (a secure stack's MinIO) trusts the stack's CA. */
    public S3Settings s3Settings() {
        return new S3Settings(s3Endpoint, s3AccessKey, s3SecretKey, bucket, "us-east-1", null, s3CaBundle().orElse(null));
    }

    /** The CA to trust for the S3 endpoint, when it serves TLS. */
    public Optional<String> s3CaBundle() {
        return s3Endpoint.startsWith("https:") && caCertificate != null ? Optional.of(caCertificate.toString()) : Optional.empty();
    }

    public static Optional<StackEndpoints> read(Path stackDir) {
        return LocalStack.read(stackDir).map(StackEndpoints::of);
    }

    public static StackEndpoints of(StackState state) {
        return new StackEndpoints(state.bootstrapServers(), state.registryUrl(), state.s3Endpoint(), state.s3AccessKey(),
                state.s3SecretKey(), state.bucket(), state.clientConfigDir() == null ? null : Path.of(state.clientConfigDir()),
                state.caCertificate() == null ? null : Path.of(state.caCertificate()));
    }
}
