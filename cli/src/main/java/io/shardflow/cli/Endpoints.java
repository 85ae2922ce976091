package io.shardflow.cli;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.dataset.store.S3Settings;
import java.io.IOException;
import java.nio.file.Files;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import picocli.CommandLine.Option;

/**
 * Where the broker, registry and object store are. Each value comes from its option, else from a
 * {@code SHARDFLOW_*} environment variable, else from the local stack started by
 * {@code shardflow stack up} (its state file), so commands need no flags on a developer machine.
 */
final class Endpoints {

    @Option(names = "--bootstrap", description = "Kafka bootstrap servers (env SHARDFLOW_BOOTSTRAP_SERVERS)")
    String bootstrap;

    @Option(names = "--registry", description = "Apicurio registry v3 URL (env SHARDFLOW_REGISTRY_URL)")
    String registry;

    @Option(names = "--s3-endpoint", description = "S3 endpoint URL (env SHARDFLOW_S3_ENDPOINT)")
    String s3Endpoint;

    @Option(names = "--s3-access-key", description = "S3 access key (env SHARDFLOW_S3_ACCESS_KEY)")
    String s3AccessKey;

    /** A file, never the value: an argument shows in {@code ps} and in shell history. */
    @Option(names = "--s3-secret-key-file", description = "file holding the S3 secret key (env SHARDFLOW_S3_SECRET_KEY, "
            + "or SHARDFLOW_S3_SECRET_KEY_FILE)")
    Path s3SecretKeyFile;

    /** Typed at a prompt without echo (read from standard input when there is no terminal): never in {@code ps}. */
    @Option(names = "--ask-s3-secret-key", interactive = true, arity = "0", description = "prompt for the S3 secret key "
            + "(typed without echo; read from standard input when it is not a terminal); wins over the file and environment")
    char[] promptedS3SecretKey;

    @Option(names = "--kafka-client-config", description = "Kafka client properties file: security.protocol, sasl.*, ssl.* "
            + "(env SHARDFLOW_KAFKA_CLIENT_CONFIG)")
    Path kafkaClientConfig;

    @Option(names = "--s3-ca-bundle", description = "PEM file of the CA(s) to trust for an https S3 endpoint "
            + "(env SHARDFLOW_S3_CA_BUNDLE; default: the JVM's trust store, or the CA of a secure local stack)")
    Path s3CaBundle;

    @Option(names = "--bucket", description = "S3 bucket (env SHARDFLOW_S3_BUCKET)")
    String bucket;

    @Option(names = "--stack-dir", description = "directory of a stack started by 'shardflow stack up' (env SHARDFLOW_STACK_DIR, default: ${DEFAULT-VALUE})",
            defaultValue = "${env:SHARDFLOW_STACK_DIR:-${sys:shardflow.home:-.}/.stack}")
    Path stackDir;

    private final Map<String, String> env = System.getenv();

    String bootstrapServers() {
        return pick(bootstrap, "SHARDFLOW_BOOTSTRAP_SERVERS", "--bootstrap", s -> s.bootstrapServers());
    }

    String registryUrl() {
        return pick(registry, "SHARDFLOW_REGISTRY_URL", "--registry", s -> s.registryUrl());
    }

    S3Settings s3() {
        return new S3Settings(
                pick(s3Endpoint, "SHARDFLOW_S3_ENDPOINT", "--s3-endpoint", s -> s.s3Endpoint()),
                pick(s3AccessKey, "SHARDFLOW_S3_ACCESS_KEY", "--s3-access-key", s -> s.s3AccessKey()),
                pick(promptedS3SecretKey != null ? new String(promptedS3SecretKey).strip()
                                : secretFromFile(s3SecretKeyFile, "SHARDFLOW_S3_SECRET_KEY_FILE"), "SHARDFLOW_S3_SECRET_KEY",
                        "--s3-secret-key-file", s -> s.s3SecretKey()),
                pick(bucket, "SHARDFLOW_S3_BUCKET", "--bucket", s -> s.bucket()),
                S3Settings.DEFAULT_REGION,
                // A session token is a secret: from the environment only.
                env.get("SHARDFLOW_S3_SESSION_TOKEN"),
                caBundle());
    }

    private String caBundle() {
        if (s3CaBundle != null) {
            return s3CaBundle.toString();
        }
        String fromEnv = env.get("SHARDFLOW_S3_CA_BUNDLE");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        return stack().flatMap(StackEndpoints::s3CaBundle).orElse(null);
    }

    /**
     * The Kafka client security settings: the file from the option or the environment, else the one
     * a secure local stack wrote for the edge principal; empty for a plain cluster.
     */
    Map<String, Object> kafkaClientSettings() {
        if (kafkaClientConfig != null) {
            return KafkaClientConfig.load(kafkaClientConfig.toString());
        }
        String fromEnv = env.get(KafkaClientConfig.ENV_NAME);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return KafkaClientConfig.load(fromEnv);
        }
        return stack().flatMap(StackEndpoints::edgeClientConfig).map(file -> KafkaClientConfig.load(file.toString()))
                .orElse(Map.of());
    }

    /**
     * The Apicurio serde's settings for reading schemas: the registry URL and the {@code apicurio.registry.*}
     * keys (auth, TLS) of the Kafka client file, where a device keeps them too (a secure local stack
     * writes them into the edge principal's file).
     */
    Map<String, Object> registrySerdeSettings(String registryUrl) {
        Map<String, Object> settings = new HashMap<>();
        kafkaClientSettings().forEach((key, value) -> {
            if (key.startsWith("apicurio.registry.")) {
                settings.put(key, value);
            }
        });
        settings.put("apicurio.registry.url", registryUrl);
        return settings;
    }

    /** An SSL context trusting the registry CA named by the client file's {@code apicurio.registry.tls.*} keys. */
    Optional<SSLContext> registryTls() {
        Map<String, Object> client = kafkaClientSettings();
        Map<String, Object> tls = new HashMap<>();
        for (String key : List.of("location", "password", "type")) {
            Object value = client.get("apicurio.registry.tls.truststore." + key);
            if (value != null) {
                tls.put("registry.tls.truststore." + key, value);
            }
        }
        return RegistryConfig.sslContext(new AbstractConfig(RegistryConfig.define(new ConfigDef()), tls, false));
    }

    private String secretFromFile(Path option, String envName) {
        String fromEnv = env.get(envName);
        Path file = option != null ? option : fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv);
        if (file == null) {
            return null;
        }
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the secret file " + file + ": " + e.getMessage());
        }
    }

    private String pick(String option, String envName, String optionName, java.util.function.Function<StackEndpoints, String> fromStack) {
        if (option != null && !option.isBlank()) {
            return option;
        }
        String fromEnv = env.get(envName);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        return stack().map(fromStack).orElseThrow(() -> new IllegalArgumentException("no " + optionName + " given, "
                + envName + " is not set, and no running stack in " + stackDir.toAbsolutePath().normalize()
                + " (start one with 'shardflow stack up')"));
    }

    private Optional<StackEndpoints> stack() {
        return StackEndpoints.read(stackDir);
    }
}
