package io.shardflow.console;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How the console runs: where it listens, who may see it, where it caches, and which optional
 * sources it shows (Kafka for dead letters and lag, the registry for decoding, the services' metrics
 * endpoints for health). Checked once at start: a console bound beyond loopback without credentials
 * does not start (docs/ARCHITECTURE.md § 8, trust boundary).
 *
 * @param credentials  required on every request when present; always present when {@code bind} is not loopback
 * @param kafka        empty: the dead-letter and lag views say Kafka is not configured
 * @param registryUrl  null: dead letters are shown undecoded
 * @param services     name to base URL of a service's metrics endpoint ({@code /health}, {@code /ready}, {@code /metrics})
 */
public record ConsoleSettings(String bind, int port, Optional<Credentials> credentials, Path cacheDir, long shardCacheBytes,
                              Optional<KafkaSettings> kafka, String registryUrl, Map<String, URI> services) {

    public static final int DEFAULT_PORT = 8080;
    public static final String DEFAULT_BIND = "127.0.0.1";

    public ConsoleSettings {
        Objects.requireNonNull(bind, "bind");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port must be 0..65535 (0 picks a free port), got " + port);
        }
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(cacheDir, "cacheDir");
        if (shardCacheBytes < 1) {
            throw new IllegalArgumentException("the shard cache needs at least one byte");
        }
        Objects.requireNonNull(kafka, "kafka");
        services = Map.copyOf(services);
        if (!isLoopback(bind) && credentials.isEmpty()) {
            throw new IllegalArgumentException("--bind " + bind + " is reachable from other machines: give credentials with "
                    + "SHARDFLOW_CONSOLE_TOKEN_FILE (or SHARDFLOW_CONSOLE_TOKEN) or SHARDFLOW_CONSOLE_BASIC_AUTH_FILE "
                    + "(user:password), or bind to 127.0.0.1");
        }
    }

    /** Whether {@code host} names only this machine (127.0.0.0/8, ::1, localhost). */
    public static boolean isLoopback(String host) {
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--bind " + host + " is not an address of this machine: " + e.getMessage());
        }
    }

    /** A bearer token, or a basic-auth user and password; never from a command-line argument. */
    public record Credentials(String user, String secret) {
        public Credentials {
            Objects.requireNonNull(secret, "secret");
            if (secret.length() < 8) {
                throw new IllegalArgumentException("the console's token or password must be at least 8 characters");
            }
        }

        public static Credentials token(String token) {
            return new Credentials(null, token);
        }

        /** Never prints the secret. */
        @Override
        public String toString() {
            return user == null ? "Credentials[token]" : "Credentials[user=" + user + "]";
        }
    }

    /**
     * Where dead letters and consumer lag come from.
     *
     * @param clientSettings security settings (SASL, TLS) for the console's own consumer and admin client
     */
    public record KafkaSettings(String bootstrapServers, Map<String, Object> clientSettings, String samplesTopic,
                                String dlqTopic, String assignmentsTopic, String ingestGroup, String sinkGroup) {
        public KafkaSettings {
            clientSettings = Map.copyOf(clientSettings);
        }

        public static KafkaSettings defaults(String bootstrapServers, Map<String, Object> clientSettings) {
            return new KafkaSettings(bootstrapServers, clientSettings, "samples", "samples-dlq", "shard-assignments",
                    "shardflow-ingest", "shardflow-shard-sink");
        }
    }
}
