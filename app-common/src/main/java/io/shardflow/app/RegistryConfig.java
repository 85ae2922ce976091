package io.shardflow.app;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * How a process authenticates to the schema registry and which certificates it trusts, in the
 * Apicurio serde's terms: HTTP basic auth, or OAuth2 client credentials against a token endpoint;
 * a trust store for a registry served over TLS with a private CA. Secrets are {@link Password}s, so
 * Kafka's config logging and {@code toString()} print {@code [hidden]}.
 */
public final class RegistryConfig {

    public static final String AUTH_USERNAME = "registry.auth.username";
    public static final String AUTH_PASSWORD = "registry.auth.password";
    public static final String AUTH_TOKEN_ENDPOINT = "registry.auth.token.endpoint";
    public static final String AUTH_CLIENT_ID = "registry.auth.client.id";
    public static final String AUTH_CLIENT_SECRET = "registry.auth.client.secret";
    public static final String AUTH_CLIENT_SCOPE = "registry.auth.client.scope";
    public static final String TRUSTSTORE_LOCATION = "registry.tls.truststore.location";
    public static final String TRUSTSTORE_PASSWORD = "registry.tls.truststore.password";
    public static final String TRUSTSTORE_TYPE = "registry.tls.truststore.type";

    // The Apicurio 3.x serde's keys (io.apicurio.registry.resolver.config.SchemaResolverConfig).
    private static final Map<String, String> SERDE_KEYS = Map.of(
            AUTH_USERNAME, "apicurio.registry.auth.username",
            AUTH_PASSWORD, "apicurio.registry.auth.password",
            AUTH_TOKEN_ENDPOINT, "apicurio.registry.auth.service.token.endpoint",
            AUTH_CLIENT_ID, "apicurio.registry.auth.client.id",
            AUTH_CLIENT_SECRET, "apicurio.registry.auth.client.secret",
            AUTH_CLIENT_SCOPE, "apicurio.registry.auth.client.scope",
            TRUSTSTORE_LOCATION, "apicurio.registry.tls.truststore.location",
            TRUSTSTORE_PASSWORD, "apicurio.registry.tls.truststore.password",
            TRUSTSTORE_TYPE, "apicurio.registry.tls.truststore.type");

    private RegistryConfig() {
    }

    /** Adds the registry auth and TLS keys to {@code definition} and returns it. */
    public static ConfigDef define(ConfigDef definition) {
        return definition
                .define(AUTH_USERNAME, Type.STRING, "", Importance.MEDIUM, "registry HTTP basic auth user; empty for none")
                .define(AUTH_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM, "registry HTTP basic auth password")
                .define(AUTH_TOKEN_ENDPOINT, Type.STRING, "", Importance.MEDIUM,
                        "OAuth2 token endpoint for client-credentials auth to the registry; empty for none")
                .define(AUTH_CLIENT_ID, Type.STRING, "", Importance.MEDIUM, "OAuth2 client id")
                .define(AUTH_CLIENT_SECRET, Type.PASSWORD, "", Importance.MEDIUM, "OAuth2 client secret")
                .define(AUTH_CLIENT_SCOPE, Type.STRING, "", Importance.LOW, "OAuth2 scope, if the server wants one")
                .define(TRUSTSTORE_LOCATION, Type.STRING, "", Importance.MEDIUM,
                        "trust store with the CA of a registry served over https; empty trusts the JVM's CAs")
                .define(TRUSTSTORE_PASSWORD, Type.PASSWORD, "", Importance.LOW, "password of the registry trust store")
                .define(TRUSTSTORE_TYPE, Type.STRING, "PKCS12", Importance.LOW, "type of the registry trust store (PKCS12, JKS, or PEM: CA certificates in a PEM file)");
    }

    /** The serde's settings for {@code registryUrl}: url plus whichever auth and TLS keys are set. */
    public static Map<String, Object> serdeSettings(AbstractConfig config, String registryUrl) {
        Map<String, Object> settings = new HashMap<>();
        settings.put("apicurio.registry.url", registryUrl);
        SERDE_KEYS.forEach((ours, theirs) -> {
            String value = value(config, ours);
            if (!value.isEmpty()) {
                settings.put(theirs, value);
            }
        });
        if (!settings.containsKey(SERDE_KEYS.get(TRUSTSTORE_LOCATION))) {
            settings.remove(SERDE_KEYS.get(TRUSTSTORE_TYPE));
        }
        return settings;
    }

    /**
     * The serde's settings from plain {@code registry.*} settings (a file such as a secure local
     * stack's {@code <client>-registry.properties}), for tools that have no config class of their own.
     */
    public static Map<String, Object> serdeSettings(Map<String, ?> registrySettings, String registryUrl) {
        return serdeSettings(new AbstractConfig(define(new ConfigDef()), registrySettings, false), registryUrl);
    }

    /** {@code Basic ...} when a user is set, for the start-up probe. */
    public static Optional<String> basicAuthorization(AbstractConfig config) {
        String user = config.getString(AUTH_USERNAME);
        if (user.isEmpty()) {
            return Optional.empty();
        }
        String pair = user + ":" + config.getPassword(AUTH_PASSWORD).value();
        return Optional.of("Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * An SSL context trusting the configured trust store, or empty to use the JVM's defaults. Type
     * {@code PEM} reads the CA certificates from a PEM file (as the serde does), no password.
     */
    public static Optional<SSLContext> sslContext(AbstractConfig config) {
        String location = config.getString(TRUSTSTORE_LOCATION);
        if (location.isEmpty()) {
            return Optional.empty();
        }
        char[] password = config.getPassword(TRUSTSTORE_PASSWORD).value().toCharArray();
        String type = config.getString(TRUSTSTORE_TYPE);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            KeyStore store;
            if ("PEM".equalsIgnoreCase(type)) {
                store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                int n = 0;
                for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    store.setCertificateEntry("ca-" + n++, certificate);
                }
                if (n == 0) {
                    throw new ConfigException(TRUSTSTORE_LOCATION, location, "holds no PEM certificate");
                }
            } else {
                store = KeyStore.getInstance(type);
                store.load(in, password.length == 0 ? null : password);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return Optional.of(context);
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(TRUSTSTORE_LOCATION, location, "cannot be loaded: " + e.getMessage());
        }
    }

    private static String value(AbstractConfig config, String key) {
        Object value = config.values().get(key);
        if (value instanceof Password password) {
            return password.value();
        }
        return value == null ? "" : value.toString();
    }
}
