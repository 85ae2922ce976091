package io.shardflow.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryClientFacadeFactory;
import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.StartupChecks;
import io.shardflow.app.StartupException;
import io.shardflow.it.support.KeycloakFixture;
import io.shardflow.it.support.SecureStackExtension;
import io.shardflow.stack.IdentityClient;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.Role;
import io.shardflow.stack.StackEndpoints;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The schema registry of {@code stack up --secure}, as anyone who can reach it sees it: real
 * Apicurio 3.0.9 on https with OIDC and role-based authorization, real Keycloak tokens. Who may do
 * what (docs/ARCHITECTURE.md § 6): nobody anonymously; only the admin client registers; every other client
 * of the stack only reads; a token that Keycloak did not sign as is, that expired or that was minted
 * for another audience is refused; plain HTTP gets no answer.
 */
@ExtendWith(SecureStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureRegistryTest {

    private static final String CREATE = "{\"artifactId\":\"%s\",\"artifactType\":\"AVRO\",\"firstVersion\":{\"content\":{"
            + "\"content\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"Probe\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"int\\\"}]}\","
            + "\"contentType\":\"application/json\"}}}";

    private LocalStack stack;
    private StackEndpoints endpoints;
    private KeycloakFixture keycloak;

    @BeforeAll
    void useTheSecureStack(LocalStack secureStack) {
        stack = secureStack;
        endpoints = StackEndpoints.of(stack);
        keycloak = KeycloakFixture.of(stack);
        assertThat(endpoints.registryUrl()).startsWith("https://");
    }

    @Test
    void shouldRefuseAnonymousListAndCreate() {
        assertThat(list(null).statusCode()).as("anonymous list").isEqualTo(401);
        assertThat(create(null, "anonymous-" + UUID.randomUUID()).statusCode()).as("anonymous create").isEqualTo(401);
    }

    @Test
    void shouldLetOnlyTheAdminRegisterAndEveryOtherClientOnlyRead() {
        for (IdentityClient client : IdentityClient.values()) {
            String token = keycloak.token(client);
            assertThat(list(token).statusCode()).as("%s lists artifacts", client).isEqualTo(200);
            int created = create(token, "probe-" + client.clientId() + "-" + UUID.randomUUID()).statusCode();
            if (client == IdentityClient.ADMIN) {
                assertThat(created).as("the admin registers").isEqualTo(200);
            } else {
                assertThat(created).as("read-only %s registers", client).isEqualTo(403);
            }
        }
        String noRole = "it-no-role-" + UUID.randomUUID();
        String token = keycloak.token(noRole, keycloak.createClient(noRole, List.of(), List.of(keycloak.idp().registryAudience()),
                Duration.ofMinutes(5)));
        assertThat(list(token).statusCode()).as("a client of the realm without a registry role reads").isEqualTo(403);
    }

    @Test
    void shouldRefuseForgedExpiredAndMisaddressedTokens() throws IOException {
        String edge = keycloak.token(IdentityClient.EDGE);
        String forged = KeycloakFixture.tamper(edge, "sr-admin");
        assertThat(KeycloakFixture.claims(forged).at("/realm_access/roles").toString()).contains("sr-admin");
        assertThat(list(forged).statusCode()).as("a token whose claims were changed after signing").isEqualTo(401);
        assertThat(create(forged, "forged-" + UUID.randomUUID()).statusCode()).as("a forged admin creates").isEqualTo(401);

        String shortLived = "it-short-lived-" + UUID.randomUUID();
        // 15 s: "while valid" must hold through a TLS round trip and the registry's key fetch on a loaded machine
        String secret = keycloak.createClient(shortLived, List.of("sr-readonly"), List.of(keycloak.idp().registryAudience()),
                Duration.ofSeconds(15));
        String expiring = keycloak.token(shortLived, secret);
        assertThat(list(expiring).statusCode()).as("the short-lived token while valid").isEqualTo(200);
        long expiresAt = KeycloakFixture.claims(expiring).get("exp").asLong();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> System.currentTimeMillis() / 1000 > expiresAt + 1);
        assertThat(list(expiring).statusCode()).as("the same token after its exp").isEqualTo(401);

        String elsewhere = "it-other-audience-" + UUID.randomUUID();
        String other = keycloak.token(elsewhere, keycloak.createClient(elsewhere, List.of("sr-admin"), List.of("shardflow-gateway"),
                Duration.ofMinutes(5)));
        assertThat(list(other).statusCode()).as("an admin's token minted for another API").isEqualTo(401);

        // a bearer token is a credential too: neither server writes one it was shown to its log
        for (Role role : List.of(Role.REGISTRY, Role.IDP)) {
            String log = Files.readString(stack.logFile(role));
            for (String token : List.of(edge, forged, expiring, other)) {
                assertThat(log.contains(token.substring(token.lastIndexOf('.') + 1))).as("%s log holds a token", role).isFalse();
            }
        }
    }

    @Test
    void shouldLetTheSerdesClientGetANewTokenEachTimeItsTokenExpires() throws Exception {
        String shortLived = "it-serde-renewal-" + UUID.randomUUID();
        Map<String, String> settings = new HashMap<>(endpoints.registrySettings(IdentityClient.SINK));
        settings.put(RegistryConfig.AUTH_CLIENT_ID, shortLived);
        settings.put(RegistryConfig.AUTH_CLIENT_SECRET, keycloak.createClient(shortLived, List.of("sr-readonly"),
                List.of(keycloak.idp().registryAudience()), Duration.ofSeconds(8)));
        // the serde's own registry client, as ingest-app's and shard-sink's deserializers build it
        RegistryClientFacade registry = RegistryClientFacadeFactory.create(
                new SchemaResolverConfig(RegistryConfig.serdeSettings(settings, endpoints.registryUrl())));
        String latest = call(HttpRequest.newBuilder(URI.create(endpoints.registryUrl()
                + "/groups/default/artifacts/samples-value/versions/branch=latest")).GET(), keycloak.token(IdentityClient.SINK)).body();
        long contentId = new ObjectMapper().readTree(latest).get("contentId").asLong();

        for (int round = 0; round < 4; round++) {
            assertThat(registry.getSchemaByContentId(contentId)).as("round %d, %d s after the first token", round, 10 * round)
                    .contains("\"name\":\"Sample\"");
            Thread.sleep(10_000); // past the 8-second lifetime of the token just used (long enough for one call on a loaded machine)
        }
    }

    @Test
    void shouldServeOnlyTlsWithTheStacksCertificate() throws Exception {
        URI https = URI.create(endpoints.registryUrl() + "/system/info");
        assertThat(keycloak.http().send(HttpRequest.newBuilder(https).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode())
                .as("trusting the stack's CA").isEqualTo(200);
        URI plain = URI.create(https.toString().replaceFirst("^https:", "http:"));
        HttpClient http = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).connectTimeout(Duration.ofSeconds(10)).build();
        assertThatThrownBy(() -> http.send(HttpRequest.newBuilder(plain).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString())).as("plain HTTP to the TLS listener").isInstanceOf(IOException.class);
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(https).GET().build(),
                HttpResponse.BodyHandlers.discarding())).as("a client that trusts only the JVM's CAs")
                .isInstanceOf(SSLHandshakeException.class);
        URI keycloakPlain = URI.create(keycloak.idp().issuer().replaceFirst("^https:", "http:"));
        assertThatThrownBy(() -> http.send(HttpRequest.newBuilder(keycloakPlain).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString())).as("plain HTTP to Keycloak").isInstanceOf(IOException.class);
    }

    @Test
    void shouldStopAProcessAtStartNamingTheKeyWhenTheRegistryOrIdentityProviderRefusesIt() {
        Map<String, String> sink = endpoints.registrySettings(IdentityClient.SINK);
        assertThat(probe(sink)).as("the sink's own settings").isNull();

        Map<String, String> wrongSecret = new HashMap<>(sink);
        wrongSecret.put(RegistryConfig.AUTH_CLIENT_SECRET, "not-the-secret-" + UUID.randomUUID());
        StartupException refused = probe(wrongSecret);
        assertThat(refused.setting()).isEqualTo(RegistryConfig.AUTH_CLIENT_SECRET);
        assertThat(refused.getMessage()).contains("shardflow-sink", "HTTP 401")
                .doesNotContain(wrongSecret.get(RegistryConfig.AUTH_CLIENT_SECRET));

        String noRole = "it-start-no-role-" + UUID.randomUUID();
        Map<String, String> withoutRole = new HashMap<>(sink);
        withoutRole.put(RegistryConfig.AUTH_CLIENT_ID, noRole);
        withoutRole.put(RegistryConfig.AUTH_CLIENT_SECRET, keycloak.createClient(noRole, List.of(),
                List.of(keycloak.idp().registryAudience()), Duration.ofMinutes(5)));
        assertThat(probe(withoutRole).setting()).as("403: a principal without a registry role").isEqualTo(RegistryConfig.AUTH_CLIENT_ID);

        String otherApi = "it-start-other-audience-" + UUID.randomUUID();
        Map<String, String> misaddressed = new HashMap<>(sink);
        misaddressed.put(RegistryConfig.AUTH_CLIENT_ID, otherApi);
        misaddressed.put(RegistryConfig.AUTH_CLIENT_SECRET, keycloak.createClient(otherApi, List.of("sr-readonly"),
                List.of("shardflow-gateway"), Duration.ofMinutes(5)));
        assertThat(probe(misaddressed).setting()).as("401: a token the registry does not take").isEqualTo(RegistryConfig.AUTH_TOKEN_ENDPOINT);
    }

    /** The services' start-up probe with {@code registrySettings}; null when it passes. */
    private StartupException probe(Map<String, String> registrySettings) {
        AbstractConfig config = new AbstractConfig(RegistryConfig.define(new ConfigDef()), registrySettings, false);
        try {
            new StartupChecks(Duration.ofSeconds(30)).registry(endpoints.registryUrl(), config, "registry.url");
            return null;
        } catch (StartupException e) {
            return e;
        }
    }

    private HttpResponse<String> list(String token) {
        return call(HttpRequest.newBuilder(URI.create(endpoints.registryUrl() + "/groups/default/artifacts")).GET(), token);
    }

    private HttpResponse<String> create(String token, String artifactId) {
        return call(HttpRequest.newBuilder(URI.create(endpoints.registryUrl() + "/groups/default/artifacts"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(String.format(CREATE, artifactId))), token);
    }

    private HttpResponse<String> call(HttpRequest.Builder request, String token) {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return keycloak.http().send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("the registry did not answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
