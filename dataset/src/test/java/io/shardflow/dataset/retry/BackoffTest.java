package io.shardflow.dataset.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1000));
    private final SplittableRandom random = new SplittableRandom();

    @RepeatedTest(20)
    void shouldDoubleTheCeilingWithEachFailureAndDrawFromItsUpperHalf() {
        assertThat(backoff.delay(1, random).toMillis()).isBetween(50L, 100L);
        assertThat(backoff.delay(2, random).toMillis()).isBetween(100L, 200L);
        assertThat(backoff.delay(3, random).toMillis()).isBetween(200L, 400L);
        assertThat(backoff.delay(4, random).toMillis()).isBetween(400L, 800L);
    }

    @RepeatedTest(20)
    void shouldNeverWaitLongerThanTheCapHoweverManyFailures() {
        assertThat(backoff.delay(5, random).toMillis()).isBetween(500L, 1000L);
        assertThat(backoff.delay(64, random).toMillis()).isBetween(500L, 1000L);
        assertThat(backoff.delay(Integer.MAX_VALUE, random).toMillis()).isBetween(500L, 1000L);
    }

    @Test
    void shouldStartAtTheCapWhenTheFirstWaitIsAboveIt() {
        Backoff inverted = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1));

        assertThat(inverted.delay(1, random).toMillis()).isBetween(500L, 1000L);
    }

    @Test
    void shouldRefuseLessThanOneFailure() {
        assertThatThrownBy(() -> backoff.delay(0, random)).isInstanceOf(IllegalArgumentException.class);
    }
}
