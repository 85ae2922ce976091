package io.shardflow.gateway.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Per-device token buckets, the defaults for devices whose token sets none: requests and body
 * bytes, each with a sustained rate and a burst. Each gateway instance keeps its own buckets
 * (docs/ARCHITECTURE.md § 7: with N instances behind a balancer a device may get up to N times the
 * rate). Failed authentications are limited per client address, so tokens cannot be guessed fast.
 */
public record QuotaSettings(double requestsPerSecond, long requestBurst, long bytesPerSecond, long byteBurst, int authFailuresPerMinute) {

    public static final String REQUESTS_PER_SECOND = "quota.requests.per.second";
    public static final String REQUEST_BURST = "quota.requests.burst";
    public static final String BYTES_PER_SECOND = "quota.bytes.per.second";
    public static final String BYTE_BURST = "quota.bytes.burst";
    public static final String AUTH_FAILURES_PER_MINUTE = "quota.auth.failures.per.minute";

    /** The token buckets refill at most one token a nanosecond. */
    public static final long MAX_BYTES_PER_SECOND = 1_000_000_000L;
    public static final double MAX_REQUESTS_PER_SECOND = 1_000_000.0;

    static void define(ConfigDef definition) {
        definition
                .define(REQUESTS_PER_SECOND, Type.DOUBLE, 20.0, Range.between(0.001, MAX_REQUESTS_PER_SECOND), Importance.MEDIUM,
                        "sustained requests per second per device (429 above)")
                .define(REQUEST_BURST, Type.LONG, 40L, Range.atLeast(1), Importance.MEDIUM, "requests a device may send at once")
                .define(BYTES_PER_SECOND, Type.LONG, 8L << 20, Range.between(1, MAX_BYTES_PER_SECOND), Importance.MEDIUM,
                        "sustained request body bytes per second per device (429 above)")
                .define(BYTE_BURST, Type.LONG, 32L << 20, Range.atLeast(1), Importance.MEDIUM,
                        "body bytes a device may send at once; at least request.max.bytes")
                .define(AUTH_FAILURES_PER_MINUTE, Type.INT, 30, Range.atLeast(1), Importance.MEDIUM,
                        "failed authentications per minute per client address before it gets 429 (token guessing)");
    }

    static QuotaSettings of(AbstractConfig config, long maxRequestBytes) {
        long byteBurst = config.getLong(BYTE_BURST);
        if (byteBurst < maxRequestBytes) {
            throw new ConfigException(BYTE_BURST, byteBurst, "must be at least request.max.bytes (" + maxRequestBytes
                    + "), or the largest allowed request could never pass");
        }
        return new QuotaSettings(config.getDouble(REQUESTS_PER_SECOND), config.getLong(REQUEST_BURST), config.getLong(BYTES_PER_SECOND),
                byteBurst, config.getInt(AUTH_FAILURES_PER_MINUTE));
    }
}
