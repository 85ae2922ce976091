package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.SampleDeserializers;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.gateway.config.AuthSettings;
import io.shardflow.it.support.KeycloakFixture;
import io.shardflow.it.support.SecureStackExtension;
import io.shardflow.it.support.TestStack;
import io.shardflow.schemas.Sample;
import io.shardflow.stack.IdentityClient;
import io.shardflow.stack.LocalGateway;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.ServiceProcess;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.StackPrincipal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The gateway verifying device JWTs of the secure stack's real Keycloak, as docs/HTTP-GATEWAY.md
 * (OIDC / JWT) tells an operator to set it up: keys from Keycloak's JWKS URL over TLS trusting the
 * stack's CA, audience {@code shardflow-gateway}, one Keycloak client per device (client
 * credentials) named by its {@code client_id} claim, datasets from a {@code shardflow_datasets}
 * claim that Keycloak signs. Every token here was signed, or not, by Keycloak.
 */
@ExtendWith(SecureStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayIdentityProviderTest {

    private static final String DEVICE_CLAIM = "client_id";
    private static final Duration SKEW = Duration.ofSeconds(1);

    private LocalStack stack;
    private StackEndpoints endpoints;
    private KeycloakFixture keycloak;
    private ServiceProcess gateway;
    private Path work;
    private int port;
    private HttpClient https;

    @BeforeAll
    void startTheGateway(LocalStack secureStack) throws Exception {
        stack = secureStack;
        endpoints = StackEndpoints.of(stack);
        keycloak = KeycloakFixture.of(stack);
        work = Files.createTempDirectory("gateway-idp-");
        try (S3ObjectStore store = S3ObjectStore.connect(endpoints.s3Settings())) {
            new DatasetCatalog(store).create(TestStack.spec(GatewayFixture.DATASET, GatewayFixture.VERSION, "jwt devices",
                    "image:float32:3x8x8", "label:int64")); // the same layout again is a no-op
        }
        port = LocalGateway.freePort();
        Map<String, String> settings = new HashMap<>(LocalGateway.identityProviderSettings(endpoints, DEVICE_CLAIM));
        settings.put(AuthSettings.CLOCK_SKEW_SECONDS, Long.toString(SKEW.toSeconds()));
        gateway = LocalGateway.start(endpoints, stack.workDir(), work.resolve("gateway"), port, settings, Duration.ofSeconds(120));
        https = HttpClient.newBuilder().sslContext(KeycloakFixture.trusting(stack.caCertificate().orElseThrow()))
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterAll
    void stopTheGateway() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void shouldAcceptADeviceClientsTokenAndStampItsClientIdIntoTheSample() throws Exception {
        String device = "gw-phone-" + UUID.randomUUID().toString().substring(0, 8);
        String token = keycloak.token(device, deviceClient(device, Duration.ofMinutes(5), "[\"" + GatewayFixture.DATASET + "\"]"));
        assertThat(KeycloakFixture.claims(token).path(DEVICE_CLAIM).asText()).as("Keycloak names the client in %s", DEVICE_CLAIM)
                .isEqualTo(device);
        String sampleId = "jwt-" + UUID.randomUUID();

        HttpResponse<String> answer = post(token, GatewayClient.sample(sampleId, 1));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(GatewayClient.JSON.readTree(answer.body()).get("device_id").asText()).isEqualTo(device);
        Sample record = readBack(sampleId);
        assertThat(record.getDeviceId()).as("the device id in the record on the samples topic").isEqualTo(device);
    }

    @Test
    void shouldRefuseATokenThatClaimsAnotherDeviceInItsBody() throws Exception {
        String device = "gw-phone-" + UUID.randomUUID().toString().substring(0, 8);
        String token = keycloak.token(device, deviceClient(device, Duration.ofMinutes(5), "[\"" + GatewayFixture.DATASET + "\"]"));
        ObjectNode sample = GatewayClient.sample("jwt-" + UUID.randomUUID(), 2).put("device_id", "someone-else");

        HttpResponse<String> answer = post(token, sample);

        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(answer.body()).contains("DEVICE_MISMATCH");
    }

    @Test
    void shouldRefuseTheStacksOwnClientsTokensWhichAreForTheRegistry() throws Exception {
        for (IdentityClient client : IdentityClient.values()) {
            String token = keycloak.token(client);
            assertThat(KeycloakFixture.claims(token).path("aud").toString()).doesNotContain(LocalGateway.JWT_AUDIENCE);
            HttpResponse<String> answer = post(token, GatewayClient.sample("registry-aud-" + UUID.randomUUID(), 3));
            assertThat(answer.statusCode()).as("%s's token: %s", client, answer.body()).isEqualTo(401);
            assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        }
    }

    @Test
    void shouldRefuseATokenOnceItHasExpired() throws Exception {
        String device = "gw-short-" + UUID.randomUUID().toString().substring(0, 8);
        // 15 s: "fresh" must hold through an HTTPS round trip and a key fetch on a loaded machine (exp is in whole seconds)
        String token = keycloak.token(device, deviceClient(device, Duration.ofSeconds(15), "[\"" + GatewayFixture.DATASET + "\"]"));
        Instant expires = Instant.ofEpochSecond(KeycloakFixture.claims(token).get("exp").asLong());
        assertThat(post(token, GatewayClient.sample("fresh-" + UUID.randomUUID(), 4)).statusCode()).as("valid while fresh").isEqualTo(200);

        Thread.sleep(Math.max(0, Duration.between(Instant.now(), expires.plus(SKEW).plusSeconds(1)).toMillis()));

        HttpResponse<String> answer = post(token, GatewayClient.sample("stale-" + UUID.randomUUID(), 4));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(401);
    }

    @Test
    void shouldRefuseATamperedTokenWhateverItWidens() throws Exception {
        String device = "gw-phone-" + UUID.randomUUID().toString().substring(0, 8);
        String token = keycloak.token(device, deviceClient(device, Duration.ofMinutes(5), "[\"elsewhere\"]"));
        assertThat(post(token, GatewayClient.sample("scoped-" + UUID.randomUUID(), 5)).statusCode()).as("out of scope").isEqualTo(403);

        String allDatasets = withClaim(token, "shardflow_datasets", GatewayClient.JSON.createArrayNode().add("*"));
        String otherDevice = withClaim(token, DEVICE_CLAIM, GatewayClient.JSON.getNodeFactory().textNode("gw-victim"));
        for (String forged : List.of(allDatasets, otherDevice, KeycloakFixture.tamper(token, "sr-admin"))) {
            HttpResponse<String> answer = post(forged, GatewayClient.sample("forged-" + UUID.randomUUID(), 5));
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(401);
        }
    }

    @Test
    void shouldScopeADeviceWithoutADatasetsClaimToNothing() throws Exception {
        String device = "gw-bare-" + UUID.randomUUID().toString().substring(0, 8);
        String secret = keycloak.createClient(device, List.of(), List.of(LocalGateway.JWT_AUDIENCE), Duration.ofMinutes(5));

        HttpResponse<String> answer = post(keycloak.token(device, secret), GatewayClient.sample("bare-" + UUID.randomUUID(), 6));

        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(answer.body()).contains("DATASET_NOT_ALLOWED");
    }

    @Test
    void shouldNotStartWhenTheJwksUrlCannotBeReached() throws Exception {
        Map<String, String> settings = new HashMap<>(LocalGateway.identityProviderSettings(endpoints, DEVICE_CLAIM));
        String unreachable = "https://127.0.0.1:" + LocalGateway.freePort() + "/realms/shardflow/protocol/openid-connect/certs";
        settings.put(AuthSettings.JWKS_URL, unreachable);
        Map<String, String> all = new HashMap<>(LocalGateway.settings(endpoints, stack.workDir(), LocalGateway.freePort()));
        all.putAll(settings);
        try (ServiceProcess refused = ServiceProcess.start(LocalGateway.NAME, io.shardflow.gateway.GatewayApp.class.getName(), all,
                work.resolve("gateway-unreachable-idp"))) {
            assertThat(refused.waitFor(Duration.ofSeconds(120))).as("the gateway exits").isTrue();
            assertThat(refused.exitCode()).isEqualTo(2);
            assertThat(refused.ownLog()).contains("auth.jwt.jwks.url", unreachable);
        }
    }

    private String deviceClient(String device, Duration lifetime, String datasetsJson) {
        return keycloak.createClient(device, List.of(), List.of(LocalGateway.JWT_AUDIENCE), lifetime, Map.of("shardflow_datasets", datasetsJson));
    }

    /** {@code token} with one claim replaced and Keycloak's signature kept. */
    private static String withClaim(String token, String claim, JsonNode value) {
        String[] parts = token.split("\\.");
        ObjectNode claims = (ObjectNode) KeycloakFixture.claims(token);
        claims.set(claim, value);
        return parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(claims.toString().getBytes(StandardCharsets.UTF_8))
                + "." + parts[2];
    }

    private HttpResponse<String> post(String bearer, JsonNode sample) throws Exception {
        return https.send(HttpRequest.newBuilder(URI.create(LocalGateway.url(endpoints, port) + GatewayClient.samplesPath()))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + bearer).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(GatewayClient.JSON.writeValueAsBytes(sample))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The record of {@code sampleId} on the samples topic, read as ingest-app reads it (its principal, its registry client). */
    private Sample readBack(String sampleId) {
        Map<String, Object> props = new HashMap<>(KafkaClientConfig.load(endpoints.clientConfig(StackPrincipal.INGEST).orElseThrow().toString()));
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, endpoints.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        var deserializer = SampleDeserializers.forRegistry(RegistryConfig.serdeSettings(endpoints.registrySettings(IdentityClient.INGEST),
                endpoints.registryUrl()));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor("samples", Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (sampleId.equals(new String(record.key(), StandardCharsets.UTF_8))) {
                        return (Sample) deserializer.deserialize("samples", record.headers(), record.value());
                    }
                }
            }
        }
        throw new AssertionError("no record keyed " + sampleId + " on the samples topic within 60 s");
    }
}
