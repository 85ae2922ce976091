package io.shardflow.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.config.AbstractConfig;

/**
 * The {@code Authorization} header a process sends the schema registry at start, as its serde will
 * authenticate later: HTTP basic with {@code registry.auth.username}, or a bearer token got with
 * OAuth2 client credentials from {@code registry.auth.token.endpoint}. A refusal by the token
 * endpoint is a configuration error naming the key to fix; the secret never appears in a message.
 */
public final class RegistryAuthorization {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How the process authenticates: decides which key a 401 or 403 from the registry points at. */
    public enum Mode {
        NONE, BASIC, OAUTH2;

        /** The key to look at when the registry refuses the credentials (401) or the principal (403). */
        public String keyFor(int status) {
            switch (this) {
                case BASIC:
                    return RegistryConfig.AUTH_USERNAME;
                case OAUTH2:
                    // a token the registry does not accept came from the wrong issuer or for another audience
                    return status == 401 ? RegistryConfig.AUTH_TOKEN_ENDPOINT : RegistryConfig.AUTH_CLIENT_ID;
                default:
                    return status == 401 ? RegistryConfig.AUTH_TOKEN_ENDPOINT : RegistryConfig.AUTH_USERNAME;
            }
        }
    }

    private RegistryAuthorization() {
    }

    public static Mode mode(AbstractConfig config) {
        if (!config.getString(RegistryConfig.AUTH_TOKEN_ENDPOINT).isEmpty()) {
            return Mode.OAUTH2;
        }
        return config.getString(RegistryConfig.AUTH_USERNAME).isEmpty() ? Mode.NONE : Mode.BASIC;
    }

    /** The header value, or empty when the registry is reached without credentials. */
    public static Optional<String> header(AbstractConfig config, Optional<SSLContext> tls, Duration timeout) {
        switch (mode(config)) {
            case BASIC:
                return RegistryConfig.basicAuthorization(config);
            case OAUTH2:
                return Optional.of("Bearer " + clientCredentialsToken(config, tls, timeout));
            default:
                return Optional.empty();
        }
    }

    /**
     * One client-credentials grant (RFC 6749 § 4.4), the client authenticating with its id and
     * secret in the form, as the Apicurio serde does.
     */
    static String clientCredentialsToken(AbstractConfig config, Optional<SSLContext> tls, Duration timeout) {
        String endpoint = config.getString(RegistryConfig.AUTH_TOKEN_ENDPOINT);
        String clientId = config.getString(RegistryConfig.AUTH_CLIENT_ID);
        String secret = config.getPassword(RegistryConfig.AUTH_CLIENT_SECRET).value();
        if (clientId.isEmpty()) {
            throw new StartupException(RegistryConfig.AUTH_CLIENT_ID, "is required with " + RegistryConfig.AUTH_TOKEN_ENDPOINT);
        }
        if (secret.isEmpty()) {
            throw new StartupException(RegistryConfig.AUTH_CLIENT_SECRET, "is required with " + RegistryConfig.AUTH_TOKEN_ENDPOINT);
        }
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "client_credentials");
        form.put("client_id", clientId);
        form.put("client_secret", secret);
        String scope = config.getString(RegistryConfig.AUTH_CLIENT_SCOPE);
        if (!scope.isEmpty()) {
            form.put("scope", scope);
        }
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        tls.ifPresent(builder::sslContext);
        HttpResponse<String> response;
        try {
            response = builder.build().send(HttpRequest.newBuilder(URI.create(endpoint)).timeout(timeout)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(encode(form))).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException(RegistryConfig.AUTH_TOKEN_ENDPOINT, "interrupted while asking " + endpoint + " for a token");
        } catch (IOException | IllegalArgumentException e) {
            throw new StartupException(RegistryConfig.AUTH_TOKEN_ENDPOINT, "cannot reach the OAuth2 token endpoint " + endpoint + ": "
                    + StartupChecks.rootMessage(e));
        }
        String error = field(response.body(), "error");
        if (response.statusCode() == 401 || "invalid_client".equals(error) || "unauthorized_client".equals(error)) {
            throw new StartupException(RegistryConfig.AUTH_CLIENT_SECRET, "the token endpoint " + endpoint + " refused client '"
                    + clientId + "' (HTTP " + response.statusCode() + (error.isEmpty() ? "" : ", " + error)
                    + "): check " + RegistryConfig.AUTH_CLIENT_ID + " and " + RegistryConfig.AUTH_CLIENT_SECRET);
        }
        if (response.statusCode() != 200) {
            throw new StartupException(response.statusCode() == 400 ? RegistryConfig.AUTH_CLIENT_SCOPE : RegistryConfig.AUTH_TOKEN_ENDPOINT,
                    "the token endpoint " + endpoint + " answered HTTP " + response.statusCode() + (error.isEmpty() ? "" : " (" + error + ")"));
        }
        String token = field(response.body(), "access_token");
        if (token.isEmpty()) {
            throw new StartupException(RegistryConfig.AUTH_TOKEN_ENDPOINT, endpoint + " answered without an access_token: not an OAuth2 token endpoint");
        }
        return token;
    }

    /** A string field of a JSON object, or "" when the body is not one or lacks it. */
    private static String field(String body, String name) {
        try {
            JsonNode node = JSON.readTree(body).get(name);
            return node == null || !node.isTextual() ? "" : node.asText();
        } catch (IOException e) {
            return "";
        }
    }

    private static String encode(Map<String, String> form) {
        return form.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }
}
