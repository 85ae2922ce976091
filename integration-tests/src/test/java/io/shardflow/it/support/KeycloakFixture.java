package io.shardflow.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.stack.IdentityClient;
import io.shardflow.stack.IdentityProvider;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.StackEndpoints;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Real tokens from a secure stack's Keycloak, for tests of anything that verifies them (the registry,
 * the ingest gateway's JWT check, the console): a token for any client of the realm by OAuth2 client
 * credentials, new clients made through Keycloak's admin API (with chosen realm roles, audiences and
 * token lifetime, e.g. one whose tokens expire in seconds), and a tampered copy of a real token. No
 * hand-made token issuer: every signature checked here was made, or not, by Keycloak.
 *
 * <p>A verifier under test is pointed at {@code idp().issuer()} (its JWKS is
 * {@code issuer + "/protocol/openid-connect/certs"}) and trusts {@code idp().caFile()}. For an API of
 * its own audience, e.g. the ingest gateway: {@code createClient("it-device", List.of(),
 * List.of("shardflow-gateway"), Duration.ofMinutes(5))}, then {@code token("it-device", secret)};
 * the stack's own clients' tokens carry only the registry's audience, which such a verifier must refuse.
 */
public final class KeycloakFixture {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final IdentityProvider idp;
    private final StackEndpoints endpoints;
    private final HttpClient http;

    private KeycloakFixture(IdentityProvider idp, StackEndpoints endpoints) {
        this.idp = idp;
        this.endpoints = endpoints;
        this.http = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).connectTimeout(TIMEOUT)
                .sslContext(trusting(idp.caFile())).build();
    }

    /** The fixture of a secure stack; fails for a plain one. */
    public static KeycloakFixture of(LocalStack stack) {
        return new KeycloakFixture(stack.identityProvider().orElseThrow(() -> new IllegalStateException("not a secure stack")),
                StackEndpoints.of(stack));
    }

    public IdentityProvider idp() {
        return idp;
    }

    /** An HTTP client trusting the stack's CA only, for calls to the registry or the IdP. */
    public HttpClient http() {
        return http;
    }

    /** A fresh access token of one of the stack's own clients (its secret from the stack's client file). */
    public String token(IdentityClient client) {
        return token(client.clientId(), endpoints.registrySettings(client).get("registry.auth.client.secret"));
    }

    /** A fresh access token by client credentials; fails with Keycloak's answer when refused. */
    public String token(String clientId, String secret) {
        HttpResponse<String> response = tokenResponse(clientId, secret);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("Keycloak refused client " + clientId + ": HTTP " + response.statusCode() + " " + response.body());
        }
        return read(response.body()).get("access_token").asText();
    }

    /** The token endpoint's raw answer, for tests of refusals. */
    public HttpResponse<String> tokenResponse(String clientId, String secret) {
        return send(HttpRequest.newBuilder(URI.create(idp.tokenEndpoint())).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(Map.of("grant_type", "client_credentials", "client_id", clientId,
                        "client_secret", secret)))));
    }

    /**
     * A new confidential client of the stack's realm, allowed only client credentials, whose service
     * account holds {@code realmRoles} and whose tokens carry {@code audiences} and live
     * {@code tokenLifetime} (Keycloak counts whole seconds). Returns its secret.
     */
    public String createClient(String clientId, List<String> realmRoles, List<String> audiences, Duration tokenLifetime) {
        return createClient(clientId, realmRoles, audiences, tokenLifetime, Map.of());
    }

    /**
     * As above, and every access token of the client carries {@code jsonClaims}: claim name to a JSON
     * value (e.g. {@code "shardflow_datasets" -> "[\"phones\"]"}), put in by Keycloak's hardcoded-claim
     * mapper, so the claim is signed by Keycloak like the rest.
     */
    public String createClient(String clientId, List<String> realmRoles, List<String> audiences, Duration tokenLifetime,
                               Map<String, String> jsonClaims) {
        String admin = adminToken();
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        ObjectNode client = JSON.createObjectNode().put("clientId", clientId).put("enabled", true).put("publicClient", false)
                .put("clientAuthenticatorType", "client-secret").put("secret", secret).put("serviceAccountsEnabled", true)
                .put("standardFlowEnabled", false).put("directAccessGrantsEnabled", false);
        client.putObject("attributes").put("access.token.lifespan", Long.toString(tokenLifetime.toSeconds()));
        var mappers = client.putArray("protocolMappers");
        for (String audience : audiences) {
            ObjectNode mapper = mappers.addObject().put("name", "audience-" + audience).put("protocol", "openid-connect")
                    .put("protocolMapper", "oidc-audience-mapper");
            mapper.putObject("config").put("included.custom.audience", audience).put("access.token.claim", "true")
                    .put("id.token.claim", "false");
        }
        jsonClaims.forEach((name, json) -> mappers.addObject().put("name", "claim-" + name).put("protocol", "openid-connect")
                .put("protocolMapper", "oidc-hardcoded-claim-mapper").putObject("config").put("claim.name", name).put("claim.value", json)
                .put("jsonType.label", "JSON").put("access.token.claim", "true").put("id.token.claim", "false")
                .put("userinfo.token.claim", "false"));
        String realmApi = idp.baseUrl() + "/admin/realms/" + idp.realm();
        expect(201, adminCall(admin, realmApi + "/clients", "POST", client.toString()), "create client " + clientId);
        String id = read(expect(200, adminCall(admin, realmApi + "/clients?clientId=" + clientId, "GET", null), "find client")).get(0)
                .get("id").asText();
        String user = read(expect(200, adminCall(admin, realmApi + "/clients/" + id + "/service-account-user", "GET", null),
                "service account")).get("id").asText();
        var roles = JSON.createArrayNode();
        for (String role : realmRoles) {
            roles.add(read(expect(200, adminCall(admin, realmApi + "/roles/" + role, "GET", null), "role " + role)));
        }
        if (!realmRoles.isEmpty()) {
            expect(204, adminCall(admin, realmApi + "/users/" + user + "/role-mappings/realm", "POST", roles.toString()), "grant roles");
        }
        return secret;
    }

    /**
     * {@code token} with its claims changed to grant {@code extraRealmRole}, its signature kept: what
     * a forger can make without Keycloak's key. Every verifier must refuse it.
     */
    public static String tamper(String token, String extraRealmRole) {
        String[] parts = token.split("\\.");
        ObjectNode claims = (ObjectNode) read(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
        claims.withObject("/realm_access").withArray("roles").add(extraRealmRole);
        String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(claims.toString().getBytes(StandardCharsets.UTF_8));
        return parts[0] + "." + payload + "." + parts[2];
    }

    /** The claims of a token, unverified (to read {@code exp}, {@code aud}, roles). */
    public static JsonNode claims(String token) {
        return read(new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8));
    }

    private String adminToken() {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(idp.baseUrl() + "/realms/master/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(Map.of("grant_type", "password", "client_id", "admin-cli",
                        "username", idp.adminUser(), "password", idp.adminPassword())))));
        return read(expect(200, response, "admin login")).get("access_token").asText();
    }

    private HttpResponse<String> adminCall(String adminToken, String url, String method, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + adminToken)
                .header("Content-Type", "application/json");
        return send(request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("Keycloak did not answer: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String expect(int status, HttpResponse<String> response, String what) {
        if (response.statusCode() != status) {
            throw new IllegalStateException(what + ": Keycloak answered HTTP " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalStateException("not JSON: " + json, e);
        }
    }

    private static String form(Map<String, String> fields) {
        return fields.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
    }

    /** An SSL context trusting only the CA certificates in {@code pemFile}. */
    public static SSLContext trusting(Path pemFile) {
        try (InputStream in = Files.newInputStream(pemFile)) {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trusted.setCertificateEntry("ca-" + n++, certificate);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot trust the CA in " + pemFile, e);
        }
    }
}
