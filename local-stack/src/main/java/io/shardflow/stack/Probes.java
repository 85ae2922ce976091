package io.shardflow.stack;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.KafkaException;

/**
 * Cheap, side-effect-free readiness checks. They never throw: "not reachable yet" is an answer,
 * and the caller decides when waiting has lasted too long.
 */
final class Probes {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration SECURE_TIMEOUT = Duration.ofSeconds(10);
    // Loopback only; an explicit NO_PROXY so a proxy configured for the JVM is never consulted.
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .proxy(HttpClient.Builder.NO_PROXY)
            .connectTimeout(TIMEOUT)
            .build();

    private Probes() {
    }

    static boolean tcpOpen(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) TIMEOUT.toMillis());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The HTTP status of a GET, or -1 when nothing answered. */
    static int httpStatus(URI uri) {
        return httpStatus(uri, null);
    }

    /** @param caFile the only CA trusted for an https {@code uri}; null for plain HTTP */
    static int httpStatus(URI uri, Path caFile) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
        HttpClient client = caFile == null ? HTTP : HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY)
                .connectTimeout(TIMEOUT).sslContext(StackCertificates.trusting(caFile)).build();
        try {
            return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * The broker answers metadata requests with at least one live node. The TCP check first keeps
     * the AdminClient (and its reconnect warnings) out of the loop while the JVM is still starting.
     */
    static boolean kafkaReady(String host, int port, Map<String, Object> clientSettings) {
        if (!tcpOpen(host, port)) {
            return false;
        }
        // A TLS client's first handshake (key store, SSL engine warm-up) alone took over 2 s on a busy
        // 2-core machine, so a one-shot probe of a secure broker (`stack status`) gets more time.
        int timeoutMs = (int) (clientSettings.isEmpty() ? TIMEOUT : SECURE_TIMEOUT).toMillis();
        Properties props = new Properties();
        props.putAll(clientSettings);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, host + ":" + port);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "shardflow-stack-probe");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        try (Admin admin = Admin.create(props)) {
            return !admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMs)).nodes()
                    .get(timeoutMs, TimeUnit.MILLISECONDS).isEmpty();
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
