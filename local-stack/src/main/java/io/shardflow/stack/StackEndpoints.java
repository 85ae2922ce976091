package io.shardflow.stack;

import io.shardflow.dataset.store.S3Settings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The endpoints of a running stack, from the live object or from its state file.
 *
 * @param issuer the identity provider's issuer URL of a secure stack; null for a plain one
 */
public record StackEndpoints(String bootstrapServers, String registryUrl, String s3Endpoint, String s3AccessKey,
                             String s3SecretKey, String bucket, Path clientConfigDir, Path caCertificate, String issuer) {

    /** Endpoints without an identity provider (a plain stack, or one run elsewhere). */
    public StackEndpoints(String bootstrapServers, String registryUrl, String s3Endpoint, String s3AccessKey, String s3SecretKey,
                          String bucket, Path clientConfigDir, Path caCertificate) {
        this(bootstrapServers, registryUrl, s3Endpoint, s3AccessKey, s3SecretKey, bucket, clientConfigDir, caCertificate, null);
    }

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

    /**
     * The registry settings a secure stack wrote for {@code client} ({@code registry.auth.*}: OAuth2
     * client credentials; {@code registry.tls.*}: the stack's CA); empty for a plain stack.
     */
    public Map<String, String> registrySettings(IdentityClient client) {
        if (clientConfigDir == null) {
            return Map.of();
        }
        Map<String, String> settings = new LinkedHashMap<>();
        KafkaClientFiles.load(client.registryConfig(clientConfigDir)).forEach((key, value) -> settings.put(key, value.toString()));
        return settings;
    }

    /** The file {@link #registrySettings} reads, for clients that take a file; empty for a plain stack. */
    public Optional<Path> registryConfig(IdentityClient client) {
        return Optional.ofNullable(clientConfigDir).map(client::registryConfig);
    }

    /** The OAuth2 token endpoint of a secure stack's identity provider; empty for a plain stack. */
    public Optional<String> tokenEndpoint() {
        return Optional.ofNullable(issuer).map(i -> i + "/protocol/openid-connect/token");
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
                state.caCertificate() == null ? null : Path.of(state.caCertificate()), state.issuer());
    }
}
