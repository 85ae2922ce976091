package io.shardflow.dataset.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.store.ObjectNotFoundException;
import io.shardflow.dataset.store.ObjectStoreException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class RetrierTest {

    private final List<Duration> sleeps = new ArrayList<>();
    private final Sleeper recording = sleeps::add;

    @Test
    void shouldReturnAtOnceWhenTheFirstAttemptSucceeds() {
        Retrier retrier = new Retrier(5, Duration.ofMillis(100), Duration.ofSeconds(10), recording);

        assertThat(retrier.call("get", () -> "ok")).isEqualTo("ok");
        assertThat(sleeps).isEmpty();
    }

    @Test
    void shouldRetryStoreFailuresUntilTheOperationSucceeds() {
        Retrier retrier = new Retrier(5, Duration.ofMillis(100), Duration.ofSeconds(10), recording);
        AtomicInteger calls = new AtomicInteger();

        String result = retrier.call("put k", () -> {
            if (calls.incrementAndGet() < 3) {
                throw new ObjectStoreException("putIfAbsent", "k", "503 Slow Down");
            }
            return "stored";
        });

        assertThat(result).isEqualTo("stored");
        assertThat(calls).hasValue(3);
        assertThat(sleeps).hasSize(2);
    }

    @RepeatedTest(20) // the jitter is random: every draw must respect the bounds
    void shouldWaitLongerAfterEachFailureWithinTheJitterBounds() {
        Retrier retrier = new Retrier(6, Duration.ofMillis(100), Duration.ofSeconds(10), recording);

        assertThatThrownBy(() -> retrier.call("put k", RetrierTest::alwaysFails)).isInstanceOf(ObjectStoreException.class);

        assertThat(sleeps).hasSize(5);
        for (int i = 0; i < sleeps.size(); i++) {
            long ceiling = 100L << i;
            assertThat(sleeps.get(i).toMillis()).as("wait %d", i + 1).isBetween(ceiling / 2, ceiling);
        }
        for (int i = 1; i < sleeps.size(); i++) {
            assertThat(sleeps.get(i)).as("wait %d grows", i + 1).isGreaterThanOrEqualTo(sleeps.get(i - 1));
        }
    }

    @RepeatedTest(20)
    void shouldNeverWaitLongerThanTheMaximumBackoff() {
        Retrier retrier = new Retrier(8, Duration.ofMillis(100), Duration.ofMillis(250), recording);

        assertThatThrownBy(() -> retrier.call("put k", RetrierTest::alwaysFails)).isInstanceOf(ObjectStoreException.class);

        assertThat(sleeps).hasSize(7).allSatisfy(d -> assertThat(d.toMillis()).isLessThanOrEqualTo(250));
        assertThat(sleeps.subList(2, 7)).as("capped waits still jitter around the cap")
                .allSatisfy(d -> assertThat(d.toMillis()).isGreaterThanOrEqualTo(125));
    }

    @RepeatedTest(10)
    void shouldBoundEvenTheFirstWaitWhenTheFirstBackoffExceedsTheMaximum() {
        Retrier retrier = new Retrier(3, Duration.ofMinutes(5), Duration.ofSeconds(10), recording);

        assertThatThrownBy(() -> retrier.call("put k", RetrierTest::alwaysFails)).isInstanceOf(ObjectStoreException.class);

        assertThat(sleeps).hasSize(2).allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(10)));
    }

    @Test
    void shouldGiveUpAfterTheConfiguredAttemptsAndSaySo() {
        Retrier retrier = new Retrier(4, Duration.ofMillis(10), Duration.ofSeconds(1), recording);
        AtomicInteger calls = new AtomicInteger();
        ObjectStoreException last = new ObjectStoreException("putIfAbsent", "datasets/cams/v1/log/1.json", "connection refused");

        assertThatThrownBy(() -> retrier.call("commit 2 shards to cams/v1", () -> {
            calls.incrementAndGet();
            throw last;
        }))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("gave up after 4 attempts")
                .hasMessageContaining("commit 2 shards to cams/v1")
                .hasMessageContaining("connection refused")
                .hasCause(last)
                .satisfies(e -> assertThat(((ObjectStoreException) e).key()).isEqualTo("datasets/cams/v1/log/1.json"));
        assertThat(calls).hasValue(4);
        assertThat(sleeps).hasSize(3);
    }

    @Test
    void shouldTellTheListenerOfEveryFailedAttemptButNotOfAMissingObject() {
        List<String> heard = new ArrayList<>();
        Retrier retrier = new Retrier(3, Duration.ofMillis(10), Duration.ofSeconds(1), recording, e -> heard.add(e.operation()));
        AtomicInteger calls = new AtomicInteger();

        retrier.call("put k", () -> {
            if (calls.incrementAndGet() < 2) {
                throw new ObjectStoreException("putIfAbsent", "k", "503 Slow Down");
            }
            return "stored";
        });
        assertThatThrownBy(() -> retrier.call("put k", RetrierTest::alwaysFails)).isInstanceOf(ObjectStoreException.class);
        assertThatThrownBy(() -> retrier.call("get k", () -> {
            throw new ObjectNotFoundException("get", "k");
        })).isInstanceOf(ObjectNotFoundException.class);

        assertThat(heard).containsExactly("putIfAbsent", "putIfAbsent", "putIfAbsent", "putIfAbsent");
    }

    @Test
    void shouldNotRetryAMissingObject() {
        Retrier retrier = new Retrier(5, Duration.ofMillis(10), Duration.ofSeconds(1), recording);
        AtomicInteger calls = new AtomicInteger();
        ObjectNotFoundException missing = new ObjectNotFoundException("download", "k");

        assertThatThrownBy(() -> retrier.call("download k", () -> {
            calls.incrementAndGet();
            throw missing;
        })).isSameAs(missing);
        assertThat(calls).hasValue(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void shouldNotRetryExceptionsThatAreNotStoreFailures() {
        Retrier retrier = new Retrier(5, Duration.ofMillis(10), Duration.ofSeconds(1), recording);
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(() -> retrier.call("commit", () -> {
            calls.incrementAndGet();
            throw new IllegalStateException("commit log is corrupt");
        })).isInstanceOf(IllegalStateException.class).hasMessage("commit log is corrupt");
        assertThatThrownBy(() -> retrier.call("read", () -> {
            calls.incrementAndGet();
            throw new UncheckedIOException(new java.io.IOException("disk full"));
        })).isInstanceOf(UncheckedIOException.class);
        assertThat(calls).hasValue(2);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void shouldStopRetryingWhenInterruptedWhileWaiting() {
        Retrier retrier = new Retrier(5, Duration.ofMillis(50), Duration.ofSeconds(1), Sleeper.SYSTEM);
        AtomicInteger calls = new AtomicInteger();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> retrier.call("put k", () -> {
                calls.incrementAndGet();
                return alwaysFails();
            })).isInstanceOf(ObjectStoreException.class).hasMessageContaining("interrupted");
            assertThat(calls).hasValue(1);
            assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag restored").isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    private static String alwaysFails() {
        throw new ObjectStoreException("putIfAbsent", "k", "injected failure");
    }
}
