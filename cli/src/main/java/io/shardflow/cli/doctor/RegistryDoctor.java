package io.shardflow.cli.doctor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The schema registry answers its v3 API at the configured URL, with our credentials if any. */
public final class RegistryDoctor {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final Duration timeout;

    public RegistryDoctor(HttpClient http, Duration timeout) {
        this.http = http;
        this.timeout = timeout;
    }

    public Finding check(String registryUrl) {
        URI info;
        try {
            info = URI.create(registryUrl.replaceAll("/+$", "") + "/system/info");
        } catch (IllegalArgumentException e) {
            return Finding.fail("registry", "'" + registryUrl + "' is not a URL", "set --registry / SHARDFLOW_REGISTRY_URL to "
                    + "http://HOST:PORT/apis/registry/v3");
        }
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(info).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            int status = response.statusCode();
            if (status == 200) {
                return Finding.ok("registry", registryUrl + " answers (" + versionIn(response.body()) + ")");
            }
            if (status == 401 || status == 403) {
                return Finding.fail("registry", registryUrl + " refused us (HTTP " + status + ")",
                        "give the registry credentials of this principal");
            }
            return Finding.fail("registry", info + " answered HTTP " + status + ", not the Apicurio v3 API",
                    "point --registry / SHARDFLOW_REGISTRY_URL at http://HOST:PORT/apis/registry/v3");
        } catch (IOException e) {
            return Finding.fail("registry", "no answer from " + registryUrl + ": " + Finding.messageOf(e),
                    "start the registry ('bin/shardflow stack up') or point --registry / SHARDFLOW_REGISTRY_URL at it");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Finding.fail("registry", "interrupted", "run doctor again");
        }
    }

    private static String versionIn(String body) {
        try {
            String version = JSON.readTree(body).path("version").asText("");
            return version.isEmpty() ? "version not reported" : "Apicurio Registry " + version;
        } catch (JsonProcessingException e) {
            return "version not reported";
        }
    }
}
