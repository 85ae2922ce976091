package io.shardflow.cli;

import io.shardflow.dataset.store.S3Settings;
import io.shardflow.stack.StackEndpoints;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
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

    @Option(names = "--s3-access-key", description = "(env SHARDFLOW_S3_ACCESS_KEY)")
    String s3AccessKey;

    @Option(names = "--s3-secret-key", description = "(env SHARDFLOW_S3_SECRET_KEY)")
    String s3SecretKey;

    @Option(names = "--bucket", description = "bucket (env SHARDFLOW_S3_BUCKET)")
    String bucket;

    @Option(names = "--stack-dir", description = "directory of a stack started by 'shardflow stack up' (default: ${DEFAULT-VALUE})",
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
                pick(s3SecretKey, "SHARDFLOW_S3_SECRET_KEY", "--s3-secret-key", s -> s.s3SecretKey()),
                pick(bucket, "SHARDFLOW_S3_BUCKET", "--bucket", s -> s.bucket()),
                "us-east-1");
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
