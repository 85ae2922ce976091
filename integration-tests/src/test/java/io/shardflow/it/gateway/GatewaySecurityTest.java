package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.gateway.auth.TokenStore;
import io.shardflow.gateway.config.AuthSettings;
import io.shardflow.gateway.config.TlsSettings;
import io.shardflow.it.support.TestStack;
import io.shardflow.stack.LocalGateway;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.ServiceProcess;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.StackPrincipal;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway on a secure stack, as {@code stack up --secure --gateway} runs it: TLS with a
 * certificate from the stack's CA, producing as the least-privileged edge principal over SASL_SSL;
 * client certificates checked against the device of the token; OIDC JWTs verified against a JWKS
 * made here (a real identity provider comes with a later issue).
 */
class GatewaySecurityTest {

    @TempDir
    static Path work;
    static LocalStack stack;
    static ServiceProcess gateway;
    static int port;
    static TokenStore tokens;
    static ECKey signingKey;

    @BeforeAll
    static void start() throws Exception {
        stack = LocalStack.start(StackConfig.defaults(work.resolve("stack")).withSecure(true));
        StackEndpoints endpoints = StackEndpoints.of(stack);
        S3ObjectStore store = S3ObjectStore.connect(endpoints.s3Settings());
        new DatasetCatalog(store).create(TestStack.spec(GatewayFixture.DATASET, GatewayFixture.VERSION, "secure", "image:float32:3x8x8",
                "label:int64"));
        tokens = new TokenStore(store, Clock.systemUTC());
        signingKey = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
        Path jwks = Files.writeString(work.resolve("jwks.json"), new JWKSet(signingKey.toPublicJWK()).toString());
        port = LocalGateway.freePort();
        gateway = LocalGateway.start(endpoints, stack.workDir(), work.resolve("gateway"), port, Map.of(
                TlsSettings.CLIENT_AUTH, "want", TlsSettings.CLIENT_CA, stack.caCertificate().orElseThrow().toString(),
                AuthSettings.JWKS_FILE, jwks.toString(), AuthSettings.ISSUER, "https://idp.test", AuthSettings.AUDIENCE, "shardflow-gateway"),
                Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        stack.close();
    }

    @Test
    void shouldServeTlsWithTheStacksCertificateAndProduceAsTheEdgePrincipal() throws Exception {
        String token = tokens.create("phone-tls", List.of(GatewayFixture.DATASET), null, null, null, "").token();

        HttpResponse<String> answer = post(trustingTheStack(null), token);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body()).contains("\"device_id\":\"phone-tls\"", "\"status\":\"accepted\"");
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/openapi.json"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()))
                .as("plain HTTP on the TLS port").isInstanceOf(java.io.IOException.class);
    }

    @Test
    void shouldRequireTheClientCertificateToNameTheTokensDevice() throws Exception {
        // The stack's edge client certificate has CN=shardflow-edge.
        String sameDevice = tokens.create(StackPrincipal.EDGE.id(), List.of(GatewayFixture.DATASET), null, null, null, "").token();
        String otherDevice = tokens.create("phone-9", List.of(GatewayFixture.DATASET), null, null, null, "").token();
        SSLContext withCertificate = trustingTheStack(StackPrincipal.EDGE);

        assertThat(post(withCertificate, sameDevice).statusCode()).isEqualTo(200);
        HttpResponse<String> mismatch = post(withCertificate, otherDevice);
        assertThat(mismatch.statusCode()).isEqualTo(403);
        assertThat(mismatch.body()).contains("CERTIFICATE_MISMATCH");
    }

    @Test
    void shouldAcceptAValidJwtAndRefuseExpiredForeignOrOutOfScopeOnes() throws Exception {
        SSLContext tls = trustingTheStack(null);
        HttpResponse<String> valid = post(tls, jwt("jwt-phone", "shardflow-gateway", List.of(GatewayFixture.DATASET), 300));
        assertThat(valid.statusCode()).as(valid.body()).isEqualTo(200);
        assertThat(valid.body()).contains("\"device_id\":\"jwt-phone\"");

        assertThat(post(tls, jwt("jwt-phone", "shardflow-gateway", List.of(GatewayFixture.DATASET), -60)).statusCode()).as("expired").isEqualTo(401);
        assertThat(post(tls, jwt("jwt-phone", "another-service", List.of(GatewayFixture.DATASET), 300)).statusCode()).as("audience").isEqualTo(401);
        HttpResponse<String> scoped = post(tls, jwt("jwt-phone", "shardflow-gateway", List.of("elsewhere"), 300));
        assertThat(scoped.statusCode()).isEqualTo(403);
        assertThat(scoped.body()).contains("DATASET_NOT_ALLOWED");
    }

    private static String jwt(String device, String audience, List<String> datasets, long expiresInSeconds) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer("https://idp.test").audience(audience).subject(device)
                .expirationTime(Date.from(Instant.now().plusSeconds(expiresInSeconds))).claim("shardflow_datasets", datasets).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("k1").build(), claims);
        jwt.sign(new ECDSASigner(signingKey));
        return jwt.serialize();
    }

    private static HttpResponse<String> post(SSLContext tls, String bearer) throws Exception {
        byte[] body = GatewayClient.JSON.writeValueAsBytes(GatewayClient.sample("s-" + System.nanoTime(), 1));
        HttpClient client = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build();
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + GatewayClient.samplesPath()))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + bearer).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Trusts the stack's CA; presents {@code principal}'s client certificate when one is given. */
    private static SSLContext trustingTheStack(StackPrincipal principal) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(stack.caCertificate().orElseThrow())) {
            trust.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        var trustManagers = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        KeyManagerFactory keyManagers = null;
        if (principal != null) {
            Properties mtls = new Properties();
            try (InputStream in = Files.newInputStream(principal.mtlsClientConfig(stack.clientConfigDir().orElseThrow()))) {
                mtls.load(in);
            }
            char[] password = mtls.getProperty("ssl.keystore.password").toCharArray();
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(Path.of(mtls.getProperty("ssl.keystore.location")))) {
                keys.load(in, password);
            }
            keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
    }
}
