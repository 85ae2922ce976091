package io.shardflow.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.store.S3Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The security settings every process shares: Kafka client file, registry auth, S3 secrets. */
class SecuritySettingsTest {

    private static final ConfigDef DEFINITION = RegistryConfig.define(KafkaClientConfig.define(S3Config.define(new ConfigDef())));

    @TempDir
    Path tmp;

    @Test
    void shouldMergeTheClientFileUnderTheKafkaPrefixedSettings() throws Exception {
        Path file = Files.writeString(tmp.resolve("client.properties"), String.join("\n",
                "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512", "client.id=from-file", ""));
        Map<String, Object> settings = base();
        settings.put(KafkaClientConfig.CLIENT_CONFIG, file.toString());
        settings.put("kafka.client.id", "from-setting");

        Map<String, Object> client = KafkaClientConfig.clientSettings(new AbstractConfig(DEFINITION, settings));

        assertThat(client).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("client.id", "from-setting").doesNotContainKey("client.config");
    }

    @Test
    void shouldStopAtStartNamingTheKeyWhenTheClientFileIsMissing() {
        Map<String, Object> settings = base();
        settings.put(KafkaClientConfig.CLIENT_CONFIG, tmp.resolve("absent.properties").toString());

        assertThatThrownBy(() -> new AbstractConfig(DEFINITION, settings)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(KafkaClientConfig.CLIENT_CONFIG);
    }

    @Test
    void shouldHandTheRegistryCredentialsToTheSerdeAndHideThemEverywhereElse() {
        Map<String, Object> settings = base();
        settings.put(RegistryConfig.AUTH_USERNAME, "ingest");
        settings.put(RegistryConfig.AUTH_PASSWORD, "registry-password");
        settings.put(RegistryConfig.AUTH_CLIENT_SECRET, "oauth-secret");
        AbstractConfig config = new AbstractConfig(DEFINITION, settings);

        Map<String, Object> serde = RegistryConfig.serdeSettings(config, "https://registry/apis/registry/v3");

        assertThat(serde).containsEntry("apicurio.registry.url", "https://registry/apis/registry/v3")
                .containsEntry("apicurio.registry.auth.username", "ingest")
                .containsEntry("apicurio.registry.auth.password", "registry-password")
                .containsEntry("apicurio.registry.auth.client.secret", "oauth-secret")
                .doesNotContainKey("apicurio.registry.tls.truststore.type");
        assertThat(RegistryConfig.basicAuthorization(config)).hasValueSatisfying(header -> assertThat(header).startsWith("Basic "));
        assertThat(config.values().toString()).doesNotContain("registry-password").doesNotContain("oauth-secret");
    }

    @Test
    void shouldReadTheS3SecretFromAFileAndPassTheCaBundleAndSessionToken() throws Exception {
        Path secret = Files.writeString(tmp.resolve("s3-secret"), "file-secret\n");
        Path ca = Files.writeString(tmp.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        Map<String, Object> settings = base();
        settings.put(S3Config.ACCESS_KEY, "ak");
        settings.put(S3Config.SECRET_KEY_FILE, secret.toString());
        settings.put(S3Config.SESSION_TOKEN, "session");
        settings.put(S3Config.CA_BUNDLE, ca.toString());

        S3Settings s3 = S3Config.settings(new AbstractConfig(DEFINITION, settings));

        assertThat(s3.secretKey()).isEqualTo("file-secret");
        assertThat(s3.sessionToken()).isEqualTo("session");
        assertThat(s3.caBundle()).isEqualTo(ca.toString());
    }

    @Test
    void shouldLeaveCredentialsToTheStandardChainWhenNoAccessKeyIsSet() {
        S3Settings s3 = S3Config.settings(new AbstractConfig(DEFINITION, base()));

        assertThat(s3.hasStaticKeys()).isFalse();
    }

    @Test
    void shouldRefuseAnAccessKeyWithoutItsSecret() {
        Map<String, Object> settings = base();
        settings.put(S3Config.ACCESS_KEY, "ak");

        assertThatThrownBy(() -> S3Config.settings(new AbstractConfig(DEFINITION, settings)))
                .isInstanceOf(ConfigException.class).hasMessageContaining(S3Config.SECRET_KEY);
    }

    private static Map<String, Object> base() {
        Map<String, Object> settings = new HashMap<>();
        settings.put(S3Config.ENDPOINT, "http://127.0.0.1:9000");
        settings.put(S3Config.BUCKET, "shardflow");
        return settings;
    }
}
