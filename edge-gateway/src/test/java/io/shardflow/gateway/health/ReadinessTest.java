package io.shardflow.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The readiness state machine on a hand-driven clock; the real probes are exercised by GatewayReadinessTest on a real stack. */
class ReadinessTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Flaky broker = new Flaky();
    private final Flaky registry = new Flaky();
    private final Readiness readiness = new Readiness(broker, registry, Duration.ofSeconds(5), Duration.ofSeconds(15), now::get);

    @Test
    void shouldStartReadAndProbeNothingWhileTrafficProvesTheDependencies() {
        assertThat(readiness.isReady()).as("the start-up checks just passed").isTrue();
        for (int second = 0; second < 60; second++) {
            advance(Duration.ofSeconds(1));
            readiness.acknowledged();
            readiness.tick();
        }
        assertThat(broker.calls.get() + registry.calls.get()).isZero();
        assertThat(readiness.isReady()).isTrue();
    }

    @Test
    void shouldProbeAnIdleGatewaysDependenciesOncePerInterval() {
        for (int second = 0; second < 20; second++) {
            advance(Duration.ofSeconds(1));
            readiness.tick();
        }
        assertThat(broker.calls.get()).isEqualTo(4);
        assertThat(registry.calls.get()).isEqualTo(4);
        assertThat(readiness.isReady()).isTrue();
    }

    @Test
    void shouldTurnNotReadyWhenAFailedDeliveryIsConfirmedByTwoProbesAndReadyWhenItAnswersAgain() {
        broker.down.set(true);
        readiness.brokerFailed();
        assertThat(readiness.isReady()).as("one failed delivery alone proves nothing").isTrue();
        readiness.tick();
        assertThat(broker.calls.get()).as("a failed delivery asks for a probe at once").isEqualTo(1);
        assertThat(readiness.isReady()).as("one slow probe is not an outage").isTrue();
        advance(Duration.ofSeconds(1));
        readiness.tick();
        assertThat(readiness.isReady()).isFalse();
        assertThat(readiness.brokerUp()).isFalse();
        assertThat(readiness.registryUp()).isTrue();

        broker.down.set(false);
        advance(Duration.ofMillis(1999));
        readiness.tick();
        assertThat(readiness.isReady()).as("not probed again before its backoff").isFalse();
        advance(Duration.ofMillis(1));
        readiness.tick();
        assertThat(readiness.isReady()).isTrue();
    }

    @Test
    void shouldStayReadyThroughOneFailedProbe() {
        registry.down.set(true);
        advance(Duration.ofSeconds(5));
        readiness.tick();
        registry.down.set(false);
        advance(Duration.ofSeconds(1));
        readiness.tick();
        assertThat(registry.calls.get()).isEqualTo(2);
        assertThat(readiness.isReady()).isTrue();
    }

    @Test
    void shouldBackOffExponentiallyUpToTheMaximumWhileADependencyStaysDown() {
        registry.down.set(true);
        readiness.registryFailed();
        readiness.tick();
        int probes = registry.calls.get();
        for (int second = 0; second < 120; second++) {
            advance(Duration.ofSeconds(1));
            readiness.registryFailed(); // traffic failing all along does not hurry the probes
            readiness.tick();
        }
        // 1 + 2 + 4 + 8 + 15 + 15 ... seconds apart: 4 probes in the first 15 s, then one per 15 s
        assertThat(registry.calls.get() - probes).isBetween(10, 12);
        assertThat(readiness.isReady()).isFalse();
    }

    @Test
    void shouldCountAnAcknowledgedRecordAsProofEvenWhileAProbeSaidDown() {
        broker.down.set(true);
        readiness.brokerFailed();
        readiness.tick();
        advance(Duration.ofSeconds(1));
        readiness.tick();
        assertThat(readiness.isReady()).isFalse();
        readiness.acknowledged();
        assertThat(readiness.isReady()).isTrue();
    }

    private void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }

    private static final class Flaky implements DependencyProbe {
        final AtomicBoolean down = new AtomicBoolean();
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public void check() throws IOException {
            calls.incrementAndGet();
            if (down.get()) {
                throw new IOException("connection refused");
            }
        }
    }
}
