package io.shardflow.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class MetricsEndpointTest {

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeCountersInPrometheusFormatAndHealth() throws Exception {
        try (MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0)) {
            endpoint.registry().counter("shardflow.ingest.samples.accepted").increment(3);

            HttpResponse<String> metrics = get(endpoint.port(), "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("shardflow_ingest_samples_accepted_total 3.0");
            assertThat(get(endpoint.port(), "/health").body()).isEqualTo("ok\n");
        }
    }

    @Test
    void shouldAnswerReadyOnlyWhileTheServiceSaysSo() throws Exception {
        try (MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0)) {
            assertThat(get(endpoint.port(), "/ready").statusCode()).as("not ready before a check is set").isEqualTo(503);
            AtomicBoolean assigned = new AtomicBoolean(false);
            endpoint.readiness(assigned::get);
            assertThat(get(endpoint.port(), "/ready").statusCode()).isEqualTo(503);
            assigned.set(true);
            HttpResponse<String> ready = get(endpoint.port(), "/ready");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("ready\n");
            endpoint.readiness(() -> {
                throw new IllegalStateException("client closed");
            });
            assertThat(get(endpoint.port(), "/ready").statusCode()).as("a failing check is not ready").isEqualTo(503);
            assertThat(get(endpoint.port(), "/health").statusCode()).as("alive all along").isEqualTo(200);
        }
    }

    @Test
    void shouldCarryTheJvmMetersAndTheReadinessAsAGauge() throws Exception {
        try (MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0)) {
            String before = get(endpoint.port(), "/metrics").body();
            assertThat(before).contains("jvm_memory_used_bytes{", "jvm_threads_live_threads", "process_cpu_usage",
                    "process_uptime_seconds", "jvm_classes_loaded_classes", "process_files_open_files");
            assertThat(before).contains("shardflow_service_ready 0.0");

            endpoint.readiness(() -> true);
            assertThat(get(endpoint.port(), "/metrics").body()).contains("shardflow_service_ready 1.0");
            endpoint.readiness(() -> {
                throw new IllegalStateException("client closed");
            });
            assertThat(get(endpoint.port(), "/metrics").body()).as("a failing check reads as not ready")
                    .contains("shardflow_service_ready 0.0");
        }
    }
}
