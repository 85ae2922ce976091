package io.shardflow.gateway.config;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.S3Config;
import io.shardflow.app.ServiceConfig;
import io.shardflow.app.validate.SampleLimits;
import io.shardflow.dataset.store.S3Settings;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * edge-gateway settings, validated when the process starts so a missing or malformed one stops it
 * with a message naming the key. The sample limits use ingest-app's keys and defaults: a sample the
 * gateway accepts must be one ingest-app accepts (docs/ARCHITECTURE.md § 1, the HTTP gateway).
 */
public final class GatewayConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String REGISTRY_URL = "registry.url";
    public static final String TOPIC_SAMPLES = "topic.samples";
    public static final String LISTEN_HOST = "listen.host";
    public static final String LISTEN_PORT = "listen.port";
    public static final String METRICS_PORT = "metrics.port";
    public static final String REQUEST_MAX_BYTES = "request.max.bytes";
    public static final String BATCH_MAX_SAMPLES = "batch.max.samples";
    public static final String INFLIGHT_MAX_BYTES = "inflight.max.bytes";
    public static final String PRODUCE_TIMEOUT_MS = "produce.timeout.ms";
    public static final String RETRY_AFTER_SECONDS = "retry.after.seconds";
    public static final String REQUEST_MIN_DATA_RATE = "request.min.data.rate";
    public static final String REQUEST_MIN_DATA_RATE_GRACE_MS = "request.min.data.rate.grace.ms";
    public static final String IDLE_TIMEOUT_MS = "http.idle.timeout.ms";
    public static final String MAX_CONNECTIONS = "http.max.connections";
    public static final String FORWARDED = "http.forwarded";
    public static final String SAMPLE_MAX_BYTES = "sample.max.bytes";
    public static final String ID_MAX_CHARS = "id.max.chars";
    public static final String ATTRIBUTES_MAX_COUNT = "attributes.max.count";
    public static final String ATTRIBUTE_KEY_MAX_CHARS = "attribute.key.max.chars";
    public static final String ATTRIBUTE_VALUE_MAX_CHARS = "attribute.value.max.chars";
    public static final String SPEC_MISS_CACHE_MS = "spec.miss.cache.ms";
    public static final String SPEC_CACHE_MAX_ENTRIES = "spec.cache.max.entries";
    public static final String IDEMPOTENCY_TTL_MS = "idempotency.ttl.ms";
    public static final String IDEMPOTENCY_MAX_BYTES = "idempotency.max.bytes";
    public static final String READY_PROBE_INTERVAL_MS = "ready.probe.interval.ms";
    public static final String READY_PROBE_TIMEOUT_MS = "ready.probe.timeout.ms";
    public static final String READY_PROBE_MAX_BACKOFF_MS = "ready.probe.max.backoff.ms";

    public static final ConfigDef DEFINITION = new ConfigDef()
            .define(BOOTSTRAP_SERVERS, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.ValidList.anyNonDuplicateValues(false, false),
                    Importance.HIGH, "Kafka bootstrap servers, host:port[,host:port]")
            .define(REGISTRY_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Apicurio Registry v3 API URL; samples are encoded as edge-client encodes them")
            .define(TOPIC_SAMPLES, Type.STRING, "samples", new ConfigDef.NonEmptyString(), Importance.MEDIUM, "topic samples are produced to")
            .define(LISTEN_HOST, Type.STRING, "127.0.0.1", new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "address the API listens on; 0.0.0.0 in a container")
            .define(LISTEN_PORT, Type.INT, 8080, Range.between(0, 65_535), Importance.HIGH, "port of the API; 0 picks a free one")
            .define(METRICS_PORT, Type.INT, -1, Range.atLeast(-1), Importance.LOW,
                    "port of the /metrics, /health and /ready endpoint (on metrics.host); -1 disables it, 0 picks a free port")
            .define(REQUEST_MAX_BYTES, Type.LONG, 16L << 20, Range.between(1024, 1L << 30), Importance.MEDIUM,
                    "largest request body; a larger one is refused with 413 before it is read whole")
            .define(BATCH_MAX_SAMPLES, Type.INT, 500, Range.between(1, 100_000), Importance.MEDIUM, "most samples in one request (413 above)")
            .define(INFLIGHT_MAX_BYTES, Type.LONG, 256L << 20, Range.atLeast(1L << 20), Importance.HIGH,
                    "memory the requests being handled may hold at once (a request reserves three times its body); a request that"
                            + " would pass it gets 503 with Retry-After. Keep it well below the heap")
            .define(PRODUCE_TIMEOUT_MS, Type.LONG, 15_000L, Range.between(2_000, 300_000), Importance.MEDIUM,
                    "how long a request waits for the broker to acknowledge its records before it answers 503")
            .define(RETRY_AFTER_SECONDS, Type.INT, 2, Range.between(1, 3600), Importance.LOW,
                    "Retry-After of a 503 (broker or registry unreachable, memory bound reached)")
            .define(REQUEST_MIN_DATA_RATE, Type.LONG, 1024L, Range.atLeast(0), Importance.LOW,
                    "bytes per second a request body must at least arrive at, on average since its first byte was awaited, or it is refused"
                            + " with 408 (slow-body attacks); 0 for no floor")
            .define(REQUEST_MIN_DATA_RATE_GRACE_MS, Type.LONG, 5_000L, Range.between(0, 600_000), Importance.LOW,
                    "how long a body may arrive at any pace before request.min.data.rate is applied (a slow radio start, a small body"
                            + " a moment behind its headers)")
            .define(IDLE_TIMEOUT_MS, Type.LONG, 30_000L, Range.between(1_000, 600_000), Importance.LOW,
                    "a connection silent this long is closed")
            .define(MAX_CONNECTIONS, Type.INT, 2_000, Range.between(1, 1_000_000), Importance.LOW,
                    "most open client connections; more wait in the accept queue")
            .define(FORWARDED, Type.BOOLEAN, false, Importance.MEDIUM,
                    "take the client address from Forwarded / X-Forwarded-For (set it behind a load balancer or ingress, never when"
                            + " clients connect directly: they could name any address). Failed authentications are counted per address")
            .define(SAMPLE_MAX_BYTES, Type.LONG, 1L << 20, Range.atLeast(1), Importance.MEDIUM,
                    "largest tensor payload of one sample (OVERSIZE_SAMPLE, 413); use ingest-app's value")
            .define(ID_MAX_CHARS, Type.INT, SampleLimits.DEFAULT_MAX_ID_CHARS, Range.between(1, 65_535), Importance.LOW,
                    "longest sample_id or device id (ID_TOO_LONG); use ingest-app's value")
            .define(ATTRIBUTES_MAX_COUNT, Type.INT, SampleLimits.DEFAULT_MAX_ATTRIBUTES, Range.between(0, 10_000), Importance.LOW,
                    "most attributes per sample (TOO_MANY_ATTRIBUTES); use ingest-app's value")
            .define(ATTRIBUTE_KEY_MAX_CHARS, Type.INT, SampleLimits.DEFAULT_MAX_ATTRIBUTE_KEY_CHARS, Range.between(1, 65_535),
                    Importance.LOW, "longest attribute key; use ingest-app's value")
            .define(ATTRIBUTE_VALUE_MAX_CHARS, Type.INT, SampleLimits.DEFAULT_MAX_ATTRIBUTE_VALUE_CHARS, Range.between(0, 1 << 20),
                    Importance.LOW, "longest attribute value; use ingest-app's value")
            .define(SPEC_MISS_CACHE_MS, Type.LONG, 10_000L, Range.atLeast(0), Importance.LOW,
                    "how long an unknown dataset version is remembered as unknown")
            .define(SPEC_CACHE_MAX_ENTRIES, Type.LONG, 10_000L, Range.atLeast(1), Importance.LOW, "most dataset versions the spec cache holds")
            .define(IDEMPOTENCY_TTL_MS, Type.LONG, 24 * 3_600_000L, Range.atLeast(1_000), Importance.LOW,
                    "how long the answer to a request with an Idempotency-Key is kept for its retries (on this instance)")
            .define(IDEMPOTENCY_MAX_BYTES, Type.LONG, 64L << 20, Range.atLeast(1L << 20), Importance.LOW,
                    "memory the kept answers may use; the oldest go first")
            .define(READY_PROBE_INTERVAL_MS, Type.LONG, 5_000L, Range.between(100, 300_000), Importance.LOW,
                    "/ready: how long the broker or registry may go without proof (an acknowledged record, or a probe) before it is probed")
            .define(READY_PROBE_TIMEOUT_MS, Type.LONG, 3_000L, Range.between(100, 60_000), Importance.LOW,
                    "/ready: how long a probe of the broker or registry may take before it counts as down")
            .define(READY_PROBE_MAX_BACKOFF_MS, Type.LONG, 15_000L, Range.between(100, 600_000), Importance.LOW,
                    "/ready: the longest wait between probes of a dependency that is down (the wait doubles from 1 s up to this)");

    static {
        S3Config.define(DEFINITION);
        KafkaClientConfig.define(DEFINITION);
        RegistryConfig.define(DEFINITION);
        ServiceConfig.define(DEFINITION);
        TlsSettings.define(DEFINITION);
        AuthSettings.define(DEFINITION);
        QuotaSettings.define(DEFINITION);
    }

    public GatewayConfig(Map<?, ?> settings) {
        super(DEFINITION, settings);
        if (getLong(REQUEST_MAX_BYTES) * 3 > getLong(INFLIGHT_MAX_BYTES)) {
            throw new ConfigException(INFLIGHT_MAX_BYTES, getLong(INFLIGHT_MAX_BYTES),
                    "must hold at least one request: three times " + REQUEST_MAX_BYTES + " (" + getLong(REQUEST_MAX_BYTES) + ")");
        }
        quotas(); // validates the bursts against the request limit
        tls();
        auth();
    }

    public SampleLimits sampleLimits() {
        return new SampleLimits(getInt(ID_MAX_CHARS), getInt(ATTRIBUTES_MAX_COUNT), getInt(ATTRIBUTE_KEY_MAX_CHARS),
                getInt(ATTRIBUTE_VALUE_MAX_CHARS), getLong(SAMPLE_MAX_BYTES));
    }

    public RequestLimits requestLimits() {
        return new RequestLimits(getLong(REQUEST_MAX_BYTES), getInt(BATCH_MAX_SAMPLES), getLong(SAMPLE_MAX_BYTES),
                Duration.ofMillis(getLong(PRODUCE_TIMEOUT_MS)), getInt(RETRY_AFTER_SECONDS));
    }

    public QuotaSettings quotas() {
        return QuotaSettings.of(this, getLong(REQUEST_MAX_BYTES));
    }

    public TlsSettings tls() {
        return TlsSettings.of(this);
    }

    public AuthSettings auth() {
        return AuthSettings.of(this);
    }

    public S3Settings s3() {
        return S3Config.settings(this);
    }

    public String bootstrapServers() {
        return String.join(",", getList(BOOTSTRAP_SERVERS));
    }

    public Map<String, Object> kafkaClientSettings() {
        return KafkaClientConfig.clientSettings(this);
    }
}
