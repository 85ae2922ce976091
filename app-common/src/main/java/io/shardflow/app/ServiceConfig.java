package io.shardflow.app;

import java.time.Duration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/** Settings every long-running service has the same way: where its probes listen, how long it may take to stop. */
public final class ServiceConfig {

    public static final String METRICS_HOST = "metrics.host";
    public static final String SHUTDOWN_TIMEOUT_MS = "shutdown.timeout.ms";

    private ServiceConfig() {
    }

    /** Adds the service keys to {@code definition} and returns it. */
    public static ConfigDef define(ConfigDef definition) {
        return definition
                .define(METRICS_HOST, Type.STRING, "127.0.0.1", new ConfigDef.NonEmptyString(), Importance.LOW,
                        "address the /metrics, /health and /ready endpoint binds to; 0.0.0.0 in a container, so probes "
                                + "and Prometheus can reach it")
                .define(SHUTDOWN_TIMEOUT_MS, Type.LONG, 30_000L, Range.between(1_000, 600_000), Importance.MEDIUM,
                        "on SIGTERM, how long the service may take to finish in-flight work and leave its group before "
                                + "it exits anyway (keep it below the orchestrator's grace period)");
    }

    public static Duration shutdownTimeout(AbstractConfig config) {
        return Duration.ofMillis(config.getLong(SHUTDOWN_TIMEOUT_MS));
    }

    /** Starts the endpoint on {@code metrics.host} and the given port, or returns null when the port is -1. */
    public static MetricsEndpoint startEndpoint(AbstractConfig config, int port) {
        return port >= 0 ? MetricsEndpoint.start(config.getString(METRICS_HOST), port) : null;
    }
}
