package io.shardflow.console.ops;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks a service's metrics endpoint (app-common's {@code MetricsEndpoint}: {@code /health},
 * {@code /ready}, {@code /metrics}) how it is, and picks the shardflow meters out of the Prometheus text.
 */
public final class ServiceHealth {

    /** A service as seen now. {@code status} is "UP", "NOT READY" or the error that kept it from answering. */
    public record Report(String name, URI base, boolean live, boolean ready, String status, Map<String, Double> meters) {
    }

    private static final Pattern SAMPLE = Pattern.compile("^(shardflow_[a-z_]+(?:\\{[^}]*})?) ([-+0-9.eEInfNa]+)$");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public Report check(String name, URI base) {
        try {
            int health = get(base, "/health").statusCode();
            int ready = get(base, "/ready").statusCode();
            HttpResponse<String> metrics = get(base, "/metrics");
            Map<String, Double> meters = metrics.statusCode() == 200 ? meters(metrics.body()) : Map.of();
            return new Report(name, base, health == 200, ready == 200, health != 200 ? "DOWN (health " + health + ")"
                    : ready == 200 ? "UP" : "NOT READY", meters);
        } catch (Exception e) {
            return new Report(name, base, false, false, "no answer: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()), Map.of());
        }
    }

    private HttpResponse<String> get(URI base, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(3)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The {@code shardflow_*} samples of a Prometheus text page, by name with labels. */
    static Map<String, Double> meters(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line.strip());
            if (m.matches()) {
                try {
                    out.put(m.group(1), Double.parseDouble(m.group(2)));
                } catch (NumberFormatException ignored) {
                    // "NaN"-like values Prometheus allows but Java spells differently are left out
                }
            }
        }
        return out;
    }
}
