package io.shardflow.gateway.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyCacheTest {

    private final IdempotencyCache cache = new IdempotencyCache(Duration.ofHours(1), 1 << 20);

    @Test
    void shouldReplayAFinalAnswerAndLetAnOutageBeRetried() {
        assertThat(cache.claim("k", "f")).isEmpty();
        assertThat(cache.claim("k", "f")).hasValueSatisfying(answer -> assertThat(answer.inProgress()).isTrue());
        cache.complete("k", "f", 200, "application/json", new byte[] {1});
        assertThat(cache.claim("k", "f")).hasValueSatisfying(answer -> {
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).containsExactly(1);
        });

        assertThat(cache.claim("k2", "f")).isEmpty();
        cache.complete("k2", "f", 503, "application/json", new byte[0]);
        assertThat(cache.claim("k2", "f")).as("a 503 is not kept: the retry runs").isEmpty();
    }

    @Test
    void shouldForgetAnAbandonedClaimButNotAFinishedAnswer() {
        cache.claim("k", "f");
        cache.abandon("k");
        assertThat(cache.claim("k", "f")).isEmpty();
        cache.complete("k", "f", 422, "application/json", new byte[0]);
        cache.abandon("k");
        assertThat(cache.claim("k", "f")).isPresent();
    }
}
