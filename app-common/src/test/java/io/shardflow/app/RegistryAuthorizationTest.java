package io.shardflow.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the start-up probe makes of the registry settings before any server answers: the key each
 * refusal names, the settings an OAuth2 grant needs, a PEM trust store. Against a real Keycloak and
 * Apicurio: integration-tests' SecureRegistryTest.
 */
class RegistryAuthorizationTest {

    private static final ConfigDef DEFINITION = RegistryConfig.define(new ConfigDef());
    /** A throw-away self-signed CA certificate (openssl, EC P-256); only parsed here. */
    private static final String CA = String.join("\n",
            "-----BEGIN CERTIFICATE-----",
            "MIIBfTCCASOgAwIBAgIUKox1W3NQOF84Ddi6THh1kt7vQgcwCgYIKoZIzj0EAwIw",
            "FDESMBAGA1UEAwwJdGVzdC1yb290MB4XDTI2MTEyNjAyMzMzNloXDTM2MTEyMzAy",
            "MzMzNlowFDESMBAGA1UEAwwJdGVzdC1yb290MFkwEwYHKoZIzj0CAQYIKoZIzj0D",
            "AQcDQgAEH2d27mRq7t0BIkWFuAfYjf/ai91NM6ye/V85x6eaibTauIDsz5lW5kDa",
            "8MboV16qifognoPK2NXyD/ELeP/s5qNTMFEwHQYDVR0OBBYEFOD+Bq6oUT4K+2u5",
            "jxGb1Vf01ZDPMB8GA1UdIwQYMBaAFOD+Bq6oUT4K+2u5jxGb1Vf01ZDPMA8GA1Ud",
            "EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgcOEGz39CDKLQe8ne40nC6n7J",
            "+W9U+/5FvHx2ILq5KyACIQCtZ5cM1qYF/vw6Qn1OsbAu012uC0vpqwzADnM9tyjI",
            "1g==",
            "-----END CERTIFICATE-----", "");

    @TempDir
    Path tmp;

    @Test
    void shouldNameTheKeyThatARefusalPointsAt() {
        assertThat(RegistryAuthorization.Mode.OAUTH2.keyFor(401)).isEqualTo(RegistryConfig.AUTH_TOKEN_ENDPOINT);
        assertThat(RegistryAuthorization.Mode.OAUTH2.keyFor(403)).isEqualTo(RegistryConfig.AUTH_CLIENT_ID);
        assertThat(RegistryAuthorization.Mode.BASIC.keyFor(401)).isEqualTo(RegistryConfig.AUTH_USERNAME);
        assertThat(RegistryAuthorization.Mode.NONE.keyFor(401)).as("credentials are wanted").isEqualTo(RegistryConfig.AUTH_TOKEN_ENDPOINT);
        assertThat(RegistryAuthorization.mode(config(Map.of()))).isEqualTo(RegistryAuthorization.Mode.NONE);
        assertThat(RegistryAuthorization.mode(config(Map.of(RegistryConfig.AUTH_USERNAME, "u")))).isEqualTo(RegistryAuthorization.Mode.BASIC);
        assertThat(RegistryAuthorization.mode(config(Map.of(RegistryConfig.AUTH_TOKEN_ENDPOINT, "https://idp/token"))))
                .isEqualTo(RegistryAuthorization.Mode.OAUTH2);
    }

    @Test
    void shouldStopNamingTheMissingOrUnreachableSetting() throws Exception {
        Map<String, Object> settings = new HashMap<>(Map.of(RegistryConfig.AUTH_TOKEN_ENDPOINT, "http://127.0.0.1:" + closedPort() + "/token"));
        assertThatThrownBy(() -> header(settings)).isInstanceOf(StartupException.class)
                .extracting(e -> ((StartupException) e).setting()).isEqualTo(RegistryConfig.AUTH_CLIENT_ID);
        settings.put(RegistryConfig.AUTH_CLIENT_ID, "shardflow-sink");
        assertThatThrownBy(() -> header(settings)).extracting(e -> ((StartupException) e).setting())
                .isEqualTo(RegistryConfig.AUTH_CLIENT_SECRET);
        settings.put(RegistryConfig.AUTH_CLIENT_SECRET, "a-secret-never-printed");
        assertThatThrownBy(() -> header(settings)).isInstanceOf(StartupException.class)
                .hasMessageContaining("cannot reach the OAuth2 token endpoint").hasMessageNotContaining("a-secret-never-printed")
                .extracting(e -> ((StartupException) e).setting()).isEqualTo(RegistryConfig.AUTH_TOKEN_ENDPOINT);
    }

    @Test
    void shouldTrustTheCertificatesOfAPemFileAndRefuseAFileWithNone() throws Exception {
        Path pem = Files.writeString(tmp.resolve("ca.pem"), CA);
        assertThat(RegistryConfig.sslContext(config(Map.of(RegistryConfig.TRUSTSTORE_LOCATION, pem.toString(),
                RegistryConfig.TRUSTSTORE_TYPE, "PEM")))).isPresent();
        Path empty = Files.writeString(tmp.resolve("empty.pem"), "no certificate here\n");
        assertThatThrownBy(() -> RegistryConfig.sslContext(config(Map.of(RegistryConfig.TRUSTSTORE_LOCATION, empty.toString(),
                RegistryConfig.TRUSTSTORE_TYPE, "PEM")))).isInstanceOf(ConfigException.class)
                .hasMessageContaining(RegistryConfig.TRUSTSTORE_LOCATION);
    }

    private static Optional<String> header(Map<String, Object> settings) {
        return RegistryAuthorization.header(config(settings), Optional.empty(), Duration.ofSeconds(5));
    }

    private static AbstractConfig config(Map<String, ?> settings) {
        return new AbstractConfig(DEFINITION, settings, false);
    }

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
