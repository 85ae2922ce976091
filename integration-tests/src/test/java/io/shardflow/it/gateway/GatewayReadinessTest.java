package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.stack.LocalGateway;
import io.shardflow.stack.Role;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /ready} says whether the gateway can serve (docs/HTTP-GATEWAY.md, Health): the real broker
 * or registry stopped, the gateway turns not ready (while {@code /health} stays up, so Kubernetes
 * stops routing to it instead of restarting it), and ready again by itself once it is back, without
 * a request to tell it so.
 */
class GatewayReadinessTest {

    private static final Duration TURNS = Duration.ofSeconds(60);

    @TempDir
    Path work;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void shouldBeReadyOnlyWhileTheBrokerAndTheRegistryAnswer() throws Exception {
        int metricsPort = LocalGateway.freePort();
        try (GatewayFixture fixture = GatewayFixture.start(work, Map.of("metrics.port", Integer.toString(metricsPort),
                "ready.probe.interval.ms", "1000", "ready.probe.max.backoff.ms", "4000"))) {
            String metrics = "http://127.0.0.1:" + metricsPort;
            GatewayClient phone = new GatewayClient(fixture.url(), fixture.token("phone-ready"));
            awaitReady(fixture, metrics, true, "started");
            assertThat(fixture.gateway.ownLog()).as("ready from the start, never turned away").doesNotContain("not ready until");
            assertAccepted(phone.postJson(GatewayClient.sample("ready-1", 1), null));

            fixture.stack.servers().stop(Role.BROKER);
            awaitReady(fixture, metrics, false, "the broker stopped");
            assertThat(status(metrics + "/health")).as("alive all the same").isEqualTo(200);
            assertThat(body(metrics + "/metrics")).contains("shardflow_gateway_dependency_up{dependency=\"broker\"} 0.0",
                    "shardflow_gateway_dependency_up{dependency=\"registry\"} 1.0");
            fixture.stack.servers().start(Role.BROKER);
            awaitReady(fixture, metrics, true, "the broker back");
            assertAccepted(phone.postJson(GatewayClient.sample("ready-2", 2), null));

            fixture.stack.servers().stop(Role.REGISTRY);
            awaitReady(fixture, metrics, false, "the registry stopped");
            assertThat(body(metrics + "/metrics")).contains("shardflow_gateway_dependency_up{dependency=\"registry\"} 0.0");
            fixture.stack.servers().start(Role.REGISTRY);
            awaitReady(fixture, metrics, true, "the registry back");
            assertAccepted(phone.postJson(GatewayClient.sample("ready-3", 3), null));
        }
    }

    private static void assertAccepted(GatewayClient.Answer answer) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(200);
    }

    private void awaitReady(GatewayFixture fixture, String metrics, boolean ready, String when) {
        try {
            Awaitility.await(when).atMost(TURNS).pollInterval(Duration.ofMillis(250))
                    .until(() -> status(metrics + "/ready") == (ready ? 200 : 503));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            String log = fixture.gateway.ownLog();
            throw new AssertionError("not " + (ready ? "ready" : "unready") + " within " + TURNS.toSeconds() + " s, " + when
                    + "; the gateway's log ends:\n" + log.substring(Math.max(0, log.length() - 4000)), e);
        }
    }

    private int status(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private String body(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
