package io.shardflow.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AccessGuardTest {

    private static String basic(String pair) {
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldAcceptTheTokenAsBearerOrAsBasicPasswordAndNothingElse() {
        ConsoleSettings.Credentials token = ConsoleSettings.Credentials.token("long-enough-token");

        assertThat(AccessGuard.authorized("Bearer long-enough-token", token)).isTrue();
        assertThat(AccessGuard.authorized(basic("whoever:long-enough-token"), token)).isTrue();
        assertThat(AccessGuard.authorized("Bearer long-enough-tokeN", token)).isFalse();
        assertThat(AccessGuard.authorized(basic("long-enough-token"), token)).isFalse();
        assertThat(AccessGuard.authorized("Basic !!!", token)).isFalse();
        assertThat(AccessGuard.authorized(null, token)).isFalse();
    }

    @Test
    void shouldCheckUserAndPasswordForBasicAuth() {
        ConsoleSettings.Credentials user = new ConsoleSettings.Credentials("ana", "correct-horse");

        assertThat(AccessGuard.authorized(basic("ana:correct-horse"), user)).isTrue();
        assertThat(AccessGuard.authorized(basic("bob:correct-horse"), user)).isFalse();
        assertThat(AccessGuard.authorized("Bearer correct-horse", user)).isFalse();
        assertThat(user.toString()).doesNotContain("correct-horse");
    }

    @Test
    void shouldTreatOnlyLoopbackHostsAsLocal() {
        assertThat(AccessGuard.loopbackHost("localhost:8080")).isTrue();
        assertThat(AccessGuard.loopbackHost("127.0.0.1:8080")).isTrue();
        assertThat(AccessGuard.loopbackHost("[::1]:8080")).isTrue();
        assertThat(AccessGuard.loopbackHost("attacker.example:8080")).isFalse();
        assertThat(AccessGuard.loopbackHost("127.0.0.1.attacker.example")).isFalse();
        assertThat(AccessGuard.loopbackHost("10.1.2.3")).isFalse();
        assertThat(AccessGuard.loopbackHost(null)).isFalse();
    }
}
