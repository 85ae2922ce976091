package io.shardflow.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bucket4j.TimeMeter;
import io.shardflow.gateway.auth.DeviceIdentity;
import io.shardflow.gateway.config.QuotaSettings;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeviceQuotasTest {

    private final AtomicLong nanos = new AtomicLong();
    private final TimeMeter time = new TimeMeter() {
        @Override
        public long currentTimeNanos() {
            return nanos.get();
        }

        @Override
        public boolean isWallClockBased() {
            return false;
        }
    };
    private final DeviceQuotas quotas = new DeviceQuotas(new QuotaSettings(2.0, 4, 1000, 4000, 3), time);
    private final DeviceIdentity phone = new DeviceIdentity("phone", Set.of("*"), "token", "id", null, null);

    @Test
    void shouldAllowTheBurstThenAskToWaitForTheRefill() {
        for (int i = 0; i < 4; i++) {
            assertThat(quotas.acquire(phone, 10)).isEmpty();
        }
        assertThat(quotas.acquire(phone, 10)).hasValueSatisfying(wait -> assertThat(wait).isBetween(Duration.ofMillis(1), Duration.ofMillis(500)));
        nanos.addAndGet(Duration.ofMillis(500).toNanos());
        assertThat(quotas.acquire(phone, 10)).isEmpty();
    }

    @Test
    void shouldLimitBytesAndGiveBackTheRequestTokenWhenBytesAreShort() {
        assertThat(quotas.acquire(phone, 4000)).isEmpty();
        assertThat(quotas.acquire(phone, 1)).hasValueSatisfying(wait -> assertThat(wait).isPositive());
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(quotas.acquire(phone, 1000)).isEmpty();
        // 3 request tokens were spent at most: the refused attempt gave its token back
        assertThat(quotas.acquire(phone, 0)).isEmpty();
    }

    @Test
    void shouldKeepDevicesApartAndHonourATokensOwnRate() {
        DeviceIdentity slow = new DeviceIdentity("kiosk", Set.of("*"), "token", "id2", 0.5, null);
        assertThat(quotas.acquire(slow, 0)).isEmpty();
        assertThat(quotas.acquire(slow, 0)).isPresent();
        assertThat(quotas.acquire(phone, 0)).as("another device's bucket is untouched").isEmpty();
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(quotas.acquire(slow, 0)).isEmpty();
    }

    @Test
    void shouldClampARateNoBucketCanRefill() {
        DeviceIdentity greedy = new DeviceIdentity("greedy", Set.of("*"), "token", "id3", 1e12, Long.MAX_VALUE);

        assertThat(quotas.acquire(greedy, 500_000_000L)).isEmpty();
    }

    @Test
    void shouldBlockAnAddressAfterTooManyFailures() {
        FailureLimiter failures = new FailureLimiter(3, time);
        for (int i = 0; i < 3; i++) {
            assertThat(failures.blockedFor("10.0.0.1")).isEmpty();
            failures.recordFailure("10.0.0.1");
        }
        assertThat(failures.blockedFor("10.0.0.1")).isPresent();
        assertThat(failures.blockedFor("10.0.0.2")).isEmpty();
        nanos.addAndGet(Duration.ofSeconds(20).toNanos());
        assertThat(failures.blockedFor("10.0.0.1")).isEmpty();
    }
}
