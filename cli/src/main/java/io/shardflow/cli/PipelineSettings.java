package io.shardflow.cli;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.stack.StackPrincipal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Settings for ingest-app and shard-sink pointed at one set of endpoints. */
public final class PipelineSettings {

    private PipelineSettings() {
    }

    public static Map<String, String> ingest(StackEndpoints stack, int maxSamples, long maxBytes, Duration maxAge, Path stateDir) {
        Map<String, String> settings = common(stack, StackPrincipal.INGEST);
        settings.put("registry.url", stack.registryUrl());
        settings.put("shard.max.samples", Integer.toString(maxSamples));
        settings.put("shard.max.bytes", Long.toString(maxBytes));
        settings.put("shard.max.age.ms", Long.toString(maxAge.toMillis()));
        settings.put("seal.tick.ms", "200");
        settings.put("state.dir", stateDir.toString());
        return settings;
    }

    public static Map<String, String> sink(StackEndpoints stack, Path spoolDir, String committerId) {
        Map<String, String> settings = common(stack, StackPrincipal.SINK);
        settings.put("spool.dir", spoolDir.toString());
        settings.put("committer.id", committerId);
        return settings;
    }

    /** On a secure stack each service connects as its own least-privileged principal. */
    private static Map<String, String> common(StackEndpoints stack, StackPrincipal principal) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("bootstrap.servers", stack.bootstrapServers());
        stack.clientConfig(principal).ifPresent(file -> settings.put(KafkaClientConfig.CLIENT_CONFIG, file.toString()));
        settings.put("s3.endpoint", stack.s3Endpoint());
        settings.put("s3.access.key", stack.s3AccessKey());
        settings.put("s3.secret.key", stack.s3SecretKey());
        settings.put("s3.bucket", stack.bucket());
        stack.s3CaBundle().ifPresent(ca -> settings.put("s3.ca.bundle", ca));
        return settings;
    }
}
