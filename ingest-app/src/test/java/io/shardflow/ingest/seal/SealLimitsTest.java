package io.shardflow.ingest.seal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.schemas.internal.SealReason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SealLimitsTest {

    private final SealLimits limits = new SealLimits(3, 100, Duration.ofSeconds(10));

    @Test
    void shouldSealAfterReachingSampleCount() {
        assertThat(limits.sealAfterAdding(new ShardProgress(2, 20, 0))).isEmpty();
        assertThat(limits.sealAfterAdding(new ShardProgress(3, 30, 0))).contains(SealReason.COUNT);
    }

    @Test
    void shouldSealBeforeASampleThatWouldOverflowTheByteBudget() {
        assertThat(limits.sealBeforeAdding(new ShardProgress(1, 60, 0), 40)).isEmpty();
        assertThat(limits.sealBeforeAdding(new ShardProgress(1, 61, 0), 40)).contains(SealReason.BYTES);
    }

    @Test
    void shouldNeverSealAnEmptyShardEvenForAnOversizeSample() {
        assertThat(limits.sealBeforeAdding(new ShardProgress(0, 0, 0), 1_000)).isEmpty();
        assertThat(limits.sealAfterAdding(new ShardProgress(1, 1_000, 0))).contains(SealReason.BYTES);
    }

    @Test
    void shouldSealOnTickOnlyOnceMaxAgeHasPassed() {
        ShardProgress openedAt5s = new ShardProgress(1, 10, 5_000);
        assertThat(limits.sealOnTick(openedAt5s, 14_999)).isEmpty();
        assertThat(limits.sealOnTick(openedAt5s, 15_000)).contains(SealReason.AGE);
    }

    @Test
    void shouldNotSealAnEmptyLaneOnTick() {
        assertThat(limits.sealOnTick(new ShardProgress(0, 0, 0), Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void shouldRefuseNonsenseLimitsNamingTheSetting() {
        assertThatThrownBy(() -> new SealLimits(0, 1, Duration.ofSeconds(1))).hasMessageContaining("shard.max.samples");
        assertThatThrownBy(() -> new SealLimits(1, 0, Duration.ofSeconds(1))).hasMessageContaining("shard.max.bytes");
        assertThatThrownBy(() -> new SealLimits(1, 1, Duration.ZERO)).hasMessageContaining("shard.max.age.ms");
    }
}
