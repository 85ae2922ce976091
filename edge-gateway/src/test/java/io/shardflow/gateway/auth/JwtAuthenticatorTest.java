package io.shardflow.gateway.auth;

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
import io.github.bucket4j.TimeMeter;
import io.shardflow.gateway.config.AuthSettings;
import io.shardflow.gateway.quota.FailureLimiter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims, clock skew and an unreachable key source, with keys made here. Keycloak's own tokens are
 * checked against a running gateway by GatewayIdentityProviderTest.
 */
class JwtAuthenticatorTest {

    private static final String ISSUER = "https://idp.test/realms/devices";

    @TempDir
    Path work;

    @Test
    void shouldTakeTheDeviceFromTheConfiguredClaimAndTheDatasetsFromTheirs() throws Exception {
        ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
        JwtAuthenticator jwts = new JwtAuthenticator(settings(jwks(key), "client_id", Duration.ofSeconds(30)));

        Optional<DeviceIdentity> device = jwts.authenticate(sign(key, claims(60).claim("client_id", "phone-7").subject("uuid-1")
                .claim("shardflow_datasets", List.of("cams", "mics")).build()));

        assertThat(device).hasValueSatisfying(d -> {
            assertThat(d.deviceId()).isEqualTo("phone-7");
            assertThat(d.mayWrite("cams")).isTrue();
            assertThat(d.mayWrite("other")).isFalse();
        });
        assertThat(jwts.authenticate(sign(key, claims(60).subject("uuid-1").build()))).as("no client_id claim").isEmpty();
        assertThat(jwts.authenticate(sign(key, claims(60).claim("client_id", "phone-7").build())))
                .as("no datasets claim: a device that may write nothing")
                .hasValueSatisfying(d -> assertThat(d.mayWrite("cams")).isFalse());
    }

    @Test
    void shouldAcceptATokenPastItsExpiryOnlyWithinTheClockSkew() throws Exception {
        ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
        JwtAuthenticator lenient = new JwtAuthenticator(settings(jwks(key), "sub", Duration.ofSeconds(30)));
        JwtAuthenticator strict = new JwtAuthenticator(settings(jwks(key), "sub", Duration.ZERO));
        String expiredTenSecondsAgo = sign(key, claims(-10).subject("phone-1").build());
        String expiredAMinuteAgo = sign(key, claims(-60).subject("phone-1").build());

        assertThat(lenient.authenticate(expiredTenSecondsAgo)).isPresent();
        assertThat(lenient.authenticate(expiredAMinuteAgo)).isEmpty();
        assertThat(strict.authenticate(expiredTenSecondsAgo)).isEmpty();
    }

    @Test
    void shouldSayTheProviderIsUnavailableNotThatTheTokenIsBadWhenItsKeysCannotBeFetched() throws Exception {
        ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
        String url = "http://127.0.0.1:" + closedPort() + "/realms/devices/protocol/openid-connect/certs";
        JwtAuthenticator jwts = new JwtAuthenticator(new AuthSettings(Duration.ofSeconds(10), "", url, "", ISSUER, "shardflow-gateway",
                "sub", "shardflow_datasets", Duration.ofSeconds(30)));
        String token = sign(key, claims(60).subject("phone-1").build());

        assertThatThrownBy(jwts::fetchKeys).isInstanceOf(IdentityProviderUnavailable.class).hasMessageContaining("Connect");
        assertThatThrownBy(() -> jwts.authenticate(token)).isInstanceOf(IdentityProviderUnavailable.class);

        Authenticator authenticator = new Authenticator(null, jwts, new FailureLimiter(1, TimeMeter.SYSTEM_NANOTIME));
        for (int i = 0; i < 3; i++) {
            AuthOutcome outcome = authenticator.authenticate("Bearer " + token, "10.0.0.1", Optional.empty());
            assertThat(outcome.kind()).as("never 401, and never counted as a guess (429)").isEqualTo(AuthOutcome.Kind.PROVIDER_UNAVAILABLE);
        }
    }

    private AuthSettings settings(Path jwks, String deviceClaim, Duration skew) {
        return new AuthSettings(Duration.ofSeconds(10), jwks.toString(), "", "", ISSUER, "shardflow-gateway", deviceClaim,
                "shardflow_datasets", skew);
    }

    private Path jwks(ECKey key) throws Exception {
        return Files.writeString(work.resolve("jwks-" + key.getKeyID() + ".json"), new JWKSet(key.toPublicJWK()).toString());
    }

    private static JWTClaimsSet.Builder claims(long expiresInSeconds) {
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience("shardflow-gateway")
                .expirationTime(Date.from(Instant.now().plusSeconds(expiresInSeconds)));
    }

    private static String sign(ECKey key, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID()).build(), claims);
        jwt.sign(new ECDSASigner(key));
        return jwt.serialize();
    }

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }
}
