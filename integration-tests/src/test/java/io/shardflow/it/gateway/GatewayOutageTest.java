package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.stack.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outages and overload answer 503 with Retry-After, never a 2xx for an unacknowledged sample and
 * never a crash: the registry down when the schema must be registered, the broker down, and more
 * large requests at once than the in-flight memory bound holds, on a gateway JVM with a 192 MiB heap.
 */
class GatewayOutageTest {

    @TempDir
    Path work;

    @Test
    void shouldAnswer503WhileTheRegistryOrBrokerIsDownAnd200Again() throws Exception {
        try (GatewayFixture fixture = GatewayFixture.start(work, Map.of("produce.timeout.ms", "4000"))) {
            GatewayClient phone = new GatewayClient(fixture.url(), fixture.token("phone-outage"));
            fixture.stack.servers().stop(Role.REGISTRY);
            assertUnavailable(phone.postJson(GatewayClient.sample("r-1", 1), null));
            fixture.stack.servers().start(Role.REGISTRY);
            assertAcceptedOnRetry(phone, GatewayClient.sample("r-1", 1));

            fixture.stack.servers().stop(Role.BROKER);
            long started = System.nanoTime();
            assertUnavailable(phone.postJson(GatewayClient.sample("b-1", 2), null));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("bounded by produce.timeout.ms").isLessThan(Duration.ofSeconds(15));
            fixture.stack.servers().start(Role.BROKER);
            assertAcceptedOnRetry(phone, GatewayClient.sample("b-1", 2));
            assertThat(fixture.gateway.isAlive()).isTrue();
        }
    }

    @Test
    void shouldShedOverloadWith503InsteadOfRunningOutOfMemory() throws Exception {
        // Requests of 3.3 MB reserve 10 MB each; 48 MiB in flight holds four; a 192 MiB heap: 24 at once must not all fit.
        try (GatewayFixture fixture = GatewayFixture.start(work, Map.of("request.max.bytes", "4194304", "inflight.max.bytes", "50331648",
                "quota.bytes.burst", "1073741824", "quota.bytes.per.second", "1000000000", "quota.requests.burst", "1000"),
                List.of("-Xmx192m", "-XX:+UseSerialGC"))) {
            GatewayClient phone = new GatewayClient(fixture.url(), fixture.token("phone-flood"));
            // A batch of 200 samples whose images carry 12 KiB each (not the spec's 768 bytes: 422 is a fine
            // answer here, the memory is spent all the same), 3.3 MB of JSON.
            String image = java.util.Base64.getEncoder().encodeToString(new byte[12 << 10]);
            List<ObjectNode> samples = IntStream.range(0, 200).mapToObj(n -> {
                ObjectNode sample = GatewayClient.sample("flood-" + n, n);
                ((ObjectNode) sample.get("tensors").get("image")).put("data", image);
                return sample;
            }).toList();
            byte[] body = GatewayClient.JSON.writeValueAsBytes(GatewayClient.batch(samples));
            ExecutorService pool = Executors.newFixedThreadPool(24);
            List<Integer> statuses = Collections.synchronizedList(new ArrayList<>());
            List<Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < 48; i++) {
                sends.add(pool.submit(() -> {
                    GatewayClient.Answer answer = phone.post(body, "application/json", null);
                    statuses.add(answer.status());
                    if (answer.status() == 503) {
                        assertThat(answer.raw().headers().firstValue("Retry-After")).isPresent();
                    }
                    return null;
                }));
            }
            for (Future<?> send : sends) {
                send.get(3, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertThat(statuses).hasSize(48).allMatch(status -> status == 200 || status == 422 || status == 503);
            assertThat(statuses).as("the bound turned some away").contains(503);
            assertThat(fixture.gateway.isAlive()).as("no OutOfMemoryError (it would halt the process)").isTrue();
            assertThat(phone.postJson(GatewayClient.sample("after", 1), null).status()).isEqualTo(200);
        }
    }

    /**
     * What a device does after an outage: the same request again after Retry-After until it is
     * accepted. A server that answers is not yet a producer that has reconnected (a cold broker, its
     * backoff), so each answer before the 200 must be the documented 503.
     */
    private static void assertAcceptedOnRetry(GatewayClient phone, ObjectNode sample) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            GatewayClient.Answer answer = phone.postJson(sample, null);
            if (answer.status() == 200) {
                return;
            }
            assertUnavailable(answer);
            assertThat(System.nanoTime()).as("accepted within 90 s of the restart").isLessThan(deadline);
            Thread.sleep(1000L * Long.parseLong(answer.raw().headers().firstValue("Retry-After").orElseThrow()));
        }
    }

    private static void assertUnavailable(GatewayClient.Answer answer) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(503);
        assertThat(answer.raw().headers().firstValue("Retry-After")).isPresent();
        if (answer.body().has("results")) {
            assertThat(answer.body().get("accepted").asInt()).isZero();
        }
    }
}
