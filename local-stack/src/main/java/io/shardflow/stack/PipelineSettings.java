package io.shardflow.stack;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.S3Config;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.sink.config.SinkConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Settings for ingest-app and shard-sink pointed at one set of endpoints. */
public final class PipelineSettings {

    /** How often ingest-app looks for shards past their age: often, so local runs see age seals quickly. */
    private static final Duration SEAL_TICK = Duration.ofMillis(200);

    private PipelineSettings() {
    }

    public static Map<String, String> ingest(StackEndpoints stack, int maxSamples, long maxBytes, Duration maxAge, Path stateDir) {
        Map<String, String> settings = common(stack, StackPrincipal.INGEST, IngestConfig.BOOTSTRAP_SERVERS);
        settings.put(IngestConfig.REGISTRY_URL, stack.registryUrl());
        settings.put(IngestConfig.SHARD_MAX_SAMPLES, Integer.toString(maxSamples));
        settings.put(IngestConfig.SHARD_MAX_BYTES, Long.toString(maxBytes));
        settings.put(IngestConfig.SHARD_MAX_AGE_MS, Long.toString(maxAge.toMillis()));
        settings.put(IngestConfig.SEAL_TICK_MS, Long.toString(SEAL_TICK.toMillis()));
        settings.put(IngestConfig.STATE_DIR, stateDir.toString());
        return settings;
    }

    public static Map<String, String> sink(StackEndpoints stack, Path spoolDir, String committerId) {
        Map<String, String> settings = common(stack, StackPrincipal.SINK, SinkConfig.BOOTSTRAP_SERVERS);
        settings.put(SinkConfig.REGISTRY_URL, stack.registryUrl());
        settings.put(SinkConfig.SPOOL_DIR, spoolDir.toString());
        settings.put(SinkConfig.COMMITTER_ID, committerId);
        return settings;
    }

    /** A setting passed through to the service's Kafka client (or Kafka Streams), e.g. {@code session.timeout.ms}. */
    public static String kafka(String clientSetting) {
        return IngestConfig.KAFKA_PREFIX + clientSetting;
    }

    /**
     * On a secure stack each service connects as its own least-privileged principal, to Kafka and to
     * the registry (a read-only OIDC client; its secret goes with the S3 key into the owner-only file).
     */
    private static Map<String, String> common(StackEndpoints stack, StackPrincipal principal, String bootstrapKey) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(bootstrapKey, stack.bootstrapServers());
        stack.clientConfig(principal).ifPresent(file -> settings.put(KafkaClientConfig.CLIENT_CONFIG, file.toString()));
        settings.putAll(stack.registrySettings(IdentityClient.of(principal)));
        settings.put(S3Config.ENDPOINT, stack.s3Endpoint());
        settings.put(S3Config.ACCESS_KEY, stack.s3AccessKey());
        settings.put(S3Config.SECRET_KEY, stack.s3SecretKey());
        settings.put(S3Config.BUCKET, stack.bucket());
        stack.s3CaBundle().ifPresent(ca -> settings.put(S3Config.CA_BUNDLE, ca));
        return settings;
    }
}
