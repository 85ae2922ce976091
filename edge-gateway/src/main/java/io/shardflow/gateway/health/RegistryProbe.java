package io.shardflow.gateway.health;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * Asks the schema registry's {@code /system/info} (it answers without credentials, so no token is
 * spent on it), through the registry's TLS settings. Any answer below 500 means it is there.
 */
public final class RegistryProbe implements DependencyProbe {

    private final HttpClient http;
    private final URI info;
    private final Duration timeout;

    public RegistryProbe(String registryUrl, Optional<SSLContext> tls, Duration timeout) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        tls.ifPresent(builder::sslContext);
        this.http = builder.build();
        this.info = URI.create(registryUrl + "/system/info");
        this.timeout = timeout;
    }

    @Override
    public void check() throws IOException, InterruptedException {
        int status = http.send(HttpRequest.newBuilder(info).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
        if (status >= 500) {
            throw new IOException("the registry answered HTTP " + status);
        }
    }
}
