package io.shardflow.gateway.quota;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.shardflow.gateway.auth.DeviceIdentity;
import io.shardflow.gateway.config.QuotaSettings;
import java.time.Duration;
import java.util.Optional;

/**
 * A token bucket per device for requests and one for body bytes (Bucket4j), in this instance's
 * memory: with several gateway instances each keeps its own, so a device spread over N instances
 * gets up to N times its rate (docs/ARCHITECTURE.md § 7). A token's own rates replace the defaults;
 * its bursts scale with them. Idle devices' buckets are dropped after ten minutes (they refill to
 * full in that time anyway, for any sane burst).
 */
public final class DeviceQuotas {

    private final QuotaSettings defaults;
    private final TimeMeter time;
    private final Cache<String, Buckets> devices;

    private record Buckets(Bucket requests, Bucket bytes) {
    }

    public DeviceQuotas(QuotaSettings defaults, TimeMeter time) {
        this.defaults = defaults;
        this.time = time;
        this.devices = Caffeine.newBuilder().maximumSize(1_000_000).expireAfterAccess(Duration.ofMinutes(10)).executor(Runnable::run).build();
    }

    /**
     * Takes one request and {@code bytes} body bytes from the device's buckets; when either is empty
     * nothing is taken and the answer is how long to wait.
     */
    public Optional<Duration> acquire(DeviceIdentity device, long bytes) {
        Buckets buckets = devices.get(device.via() + ":" + device.deviceId(), key -> create(device));
        ConsumptionProbe request = buckets.requests.tryConsumeAndReturnRemaining(1);
        if (!request.isConsumed()) {
            return Optional.of(wait(request));
        }
        if (bytes > 0) {
            ConsumptionProbe body = buckets.bytes.tryConsumeAndReturnRemaining(bytes);
            if (!body.isConsumed()) {
                buckets.requests.addTokens(1);
                return Optional.of(wait(body));
            }
        }
        return Optional.empty();
    }

    private Buckets create(DeviceIdentity device) {
        // Clamped to what a bucket can refill (a token record written by hand might say more).
        double requestRate = Math.min(QuotaSettings.MAX_REQUESTS_PER_SECOND,
                device.requestsPerSecond() != null ? device.requestsPerSecond() : defaults.requestsPerSecond());
        long byteRate = Math.min(QuotaSettings.MAX_BYTES_PER_SECOND,
                device.bytesPerSecond() != null ? device.bytesPerSecond() : defaults.bytesPerSecond());
        // A token's rate scales its burst by the same factor as the defaults' burst to rate.
        long requestBurst = Math.max(1, Math.round(defaults.requestBurst() * requestRate / defaults.requestsPerSecond()));
        long byteBurst = Math.max(defaults.byteBurst(), byteRate);
        // Bucket4j refills whole tokens per period: a fractional rate becomes tokens per longer period.
        long requestsPerPeriod = Math.max(1, Math.round(requestRate));
        Duration requestPeriod = Duration.ofNanos(Math.round(requestsPerPeriod / requestRate * 1e9));
        return new Buckets(
                Bucket.builder().addLimit(limit -> limit.capacity(requestBurst).refillGreedy(requestsPerPeriod, requestPeriod))
                        .withCustomTimePrecision(time).build(),
                Bucket.builder().addLimit(limit -> limit.capacity(byteBurst).refillGreedy(byteRate, Duration.ofSeconds(1)))
                        .withCustomTimePrecision(time).build());
    }

    private static Duration wait(ConsumptionProbe probe) {
        long nanos = probe.getNanosToWaitForRefill();
        return nanos == Long.MAX_VALUE ? Duration.ofHours(1) : Duration.ofNanos(nanos);
    }
}
