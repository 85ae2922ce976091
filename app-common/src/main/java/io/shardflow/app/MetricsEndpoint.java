package io.shardflow.app;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * Serves {@code /metrics} in Prometheus text format, {@code /health} (the process answers: liveness)
 * and {@code /ready} (200 once the service is connected and has work assigned, 503 before and while
 * it is failing: readiness) from the JDK's HTTP server. Besides the service's own meters the page
 * carries {@link ServiceMeters}: the JVM and process meters and the readiness gauge.
 */
public final class MetricsEndpoint implements AutoCloseable {

    private final PrometheusMeterRegistry registry;
    private final HttpServer server;
    private volatile BooleanSupplier readiness = () -> false;
    private ServiceMeters serviceMeters;

    private MetricsEndpoint(PrometheusMeterRegistry registry, HttpServer server) {
        this.registry = registry;
        this.server = server;
    }

    /** Starts on {@code host:port}; port 0 picks a free one. */
    public static MetricsEndpoint start(String host, int port) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
            server.createContext("/metrics", exchange -> respond(exchange, registry.scrape()));
            server.createContext("/health", exchange -> respond(exchange, "ok\n"));
            MetricsEndpoint endpoint = new MetricsEndpoint(registry, server);
            endpoint.serviceMeters = ServiceMeters.bind(registry, endpoint::isReady);
            server.createContext("/ready", exchange -> {
                boolean ready = endpoint.isReady();
                respond(exchange, ready ? 200 : 503, ready ? "ready\n" : "not ready\n");
            });
            server.start();
            return endpoint;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port, e);
        }
    }

    private static void respond(com.sun.net.httpserver.HttpExchange exchange, String body) throws IOException {
        respond(exchange, 200, body);
    }

    private static void respond(com.sun.net.httpserver.HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** What {@code /ready} asks; until it is set the service is not ready. */
    public void readiness(BooleanSupplier check) {
        this.readiness = check;
    }

    private boolean isReady() {
        try {
            return readiness.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        serviceMeters.close();
    }
}
