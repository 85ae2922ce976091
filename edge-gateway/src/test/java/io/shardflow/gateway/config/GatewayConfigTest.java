package io.shardflow.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class GatewayConfigTest {

    private static Map<String, Object> minimal() {
        Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", "127.0.0.1:9092");
        settings.put("registry.url", "http://127.0.0.1:8080/apis/registry/v3");
        settings.put("s3.endpoint", "http://127.0.0.1:9000");
        settings.put("s3.bucket", "shardflow");
        return settings;
    }

    @Test
    void shouldStartFromTheMinimalSettings() {
        GatewayConfig config = new GatewayConfig(minimal());

        assertThat(config.requestLimits().maxRequestBytes()).isEqualTo(16L << 20);
        assertThat(config.tls().enabled()).isFalse();
        assertThat(config.auth().jwtEnabled()).isFalse();
        assertThat(config.sampleLimits().maxSampleBytes()).isEqualTo(1L << 20);
    }

    @Test
    void shouldNameTheKeyOfEveryBadSetting() {
        assertBad(Map.of("inflight.max.bytes", "2000000"), "inflight.max.bytes");
        assertBad(Map.of("quota.bytes.burst", "1024"), "quota.bytes.burst");
        assertBad(Map.of("tls.client.auth", "need"), "tls.client.auth");
        assertBad(Map.of("tls.keystore.location", "/nonexistent.p12"), "tls.keystore.location");
        assertBad(Map.of("auth.jwt.jwks.url", "https://idp.example/jwks"), "auth.jwt.issuer");
        assertBad(Map.of("listen.port", "70000"), "listen.port");
        assertBad(Map.of("quota.bytes.per.second", "1073741824"), "quota.bytes.per.second");
    }

    private static void assertBad(Map<String, String> override, String key) {
        Map<String, Object> settings = minimal();
        settings.putAll(override);
        assertThatThrownBy(() -> new GatewayConfig(settings)).as("%s", override).isInstanceOf(ConfigException.class).hasMessageContaining(key);
    }
}
