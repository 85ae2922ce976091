package io.shardflow.sink.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class BackpressureTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final TopicPartition P2 = new TopicPartition("t", 2);

    private final AtomicLong nanos = new AtomicLong(1_000);

    private Backpressure backpressure(long spoolLimit) {
        return new Backpressure(Duration.ofMillis(100), Duration.ofSeconds(2), spoolLimit, nanos::get,
                new SplittableRandom(nanos.get()));
    }

    @Test
    void shouldPauseNothingAndRetryAtOnceWhenAllIsWell() {
        Backpressure backpressure = backpressure(1_000);

        assertThat(backpressure.inOutage()).isFalse();
        assertThat(backpressure.retryDue()).isTrue();
        assertThat(backpressure.toPause(Set.of(P0, P1), Set.of(), 10)).isEmpty();
        assertThat(backpressure.recovered()).isZero();
    }

    @RepeatedTest(10) // the jitter is random: every draw must respect the bounds
    void shouldDoubleTheWaitWithJitterUpToTheCap() {
        Backpressure backpressure = backpressure(1_000);
        nanos.set(System.nanoTime());

        for (int failure = 1; failure <= 8; failure++) {
            Duration wait = backpressure.failed();
            long ceiling = Math.min(2_000, 100L << (failure - 1));
            assertThat(wait.toMillis()).as("wait %d", failure).isBetween(ceiling / 2, ceiling);
            assertThat(backpressure.retryDue()).isFalse();
            nanos.addAndGet(wait.toNanos());
            assertThat(backpressure.retryDue()).isTrue();
        }
        assertThat(backpressure.failures()).isEqualTo(8);
    }

    @Test
    void shouldPauseEveryAssignedPartitionDuringAnOutageAndNoneAfter() {
        Backpressure backpressure = backpressure(1_000);
        backpressure.failed();

        assertThat(backpressure.toPause(Set.of(P0, P1), Set.of(P0), 0)).containsExactlyInAnyOrder(P0, P1);

        nanos.addAndGet(Duration.ofSeconds(5).toNanos());
        assertThat(backpressure.recovered()).isEqualTo(Duration.ofSeconds(5));
        assertThat(backpressure.toPause(Set.of(P0, P1), Set.of(P0), 0)).isEmpty();
        assertThat(backpressure.failures()).isZero();
    }

    @Test
    void shouldStartOverWithTheShortWaitAfterARecovery() {
        Backpressure backpressure = backpressure(1_000);
        for (int i = 0; i < 6; i++) {
            backpressure.failed();
        }
        backpressure.recovered();

        assertThat(backpressure.failed().toMillis()).isBetween(50L, 100L);
    }

    @Test
    void shouldPauseOnlyPartitionsWithoutOpenShardsWhenTheSpoolIsOverBudget() {
        Backpressure backpressure = backpressure(1_000);

        assertThat(backpressure.toPause(Set.of(P0, P1, P2), Set.of(P1), 1_000)).as("at the budget").isEmpty();
        assertThat(backpressure.toPause(Set.of(P0, P1, P2), Set.of(P1), 1_001)).containsExactlyInAnyOrder(P0, P2);
        assertThat(backpressure.toPause(Set.of(P0, P1), Set.of(P0, P1), 5_000)).as("never a deadlock").isEmpty();
    }

    @Test
    void shouldRefuseAMaximumBelowTheFirstWait() {
        assertThatThrownBy(() -> new Backpressure(Duration.ofSeconds(2), Duration.ofSeconds(1), 1, () -> 0,
                new SplittableRandom())).isInstanceOf(IllegalArgumentException.class);
    }
}
