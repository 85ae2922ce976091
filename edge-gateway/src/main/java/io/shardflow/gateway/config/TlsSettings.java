package io.shardflow.gateway.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * TLS on the API listener: a PKCS12 key store with the server's key and chain, and optionally
 * client certificates (mTLS) checked against a CA. Without a key store the listener speaks plain
 * HTTP (behind a TLS-terminating load balancer, or on a developer machine).
 *
 * @param clientAuth none, want (a certificate is checked when one is sent) or need
 */
public record TlsSettings(String keyStore, String keyStorePassword, String keyStoreType, String clientAuth, String clientCa) {

    public static final String KEYSTORE_LOCATION = "tls.keystore.location";
    public static final String KEYSTORE_PASSWORD = "tls.keystore.password";
    public static final String KEYSTORE_PASSWORD_FILE = "tls.keystore.password.file";
    public static final String KEYSTORE_TYPE = "tls.keystore.type";
    public static final String CLIENT_AUTH = "tls.client.auth";
    public static final String CLIENT_CA = "tls.client.ca";

    static void define(ConfigDef definition) {
        definition
                .define(KEYSTORE_LOCATION, Type.STRING, "", Importance.HIGH,
                        "key store (PKCS12) with the listener's private key and certificate chain; empty serves plain HTTP")
                .define(KEYSTORE_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM, "password of the key store (prefer " + KEYSTORE_PASSWORD_FILE + ")")
                .define(KEYSTORE_PASSWORD_FILE, Type.STRING, "", Importance.MEDIUM, "file holding the key store password")
                .define(KEYSTORE_TYPE, Type.STRING, "PKCS12", Importance.LOW, "type of the key store")
                .define(CLIENT_AUTH, Type.STRING, "none", ConfigDef.ValidString.in("none", "want", "need"), Importance.MEDIUM,
                        "client certificates (mTLS): none; want (checked when sent); need (a connection without one is refused)."
                                + " A device's certificate CN must equal the device id of its token")
                .define(CLIENT_CA, Type.STRING, "", Importance.MEDIUM, "PEM file of the CA(s) device certificates must chain to");
    }

    static TlsSettings of(AbstractConfig config) {
        String keyStore = config.getString(KEYSTORE_LOCATION);
        String clientAuth = config.getString(CLIENT_AUTH).toLowerCase(Locale.ROOT);
        String clientCa = config.getString(CLIENT_CA);
        if (!keyStore.isEmpty() && !Files.isReadable(Path.of(keyStore))) {
            throw new ConfigException(KEYSTORE_LOCATION, keyStore, "no readable file there");
        }
        if (!clientAuth.equals("none")) {
            if (keyStore.isEmpty()) {
                throw new ConfigException(CLIENT_AUTH, clientAuth, "client certificates need TLS: set " + KEYSTORE_LOCATION);
            }
            if (clientCa.isEmpty() || !Files.isReadable(Path.of(clientCa))) {
                throw new ConfigException(CLIENT_CA, clientCa, "must name a readable PEM file when " + CLIENT_AUTH + " is " + clientAuth);
            }
        }
        return new TlsSettings(keyStore, Secrets.read(config, KEYSTORE_PASSWORD, KEYSTORE_PASSWORD_FILE), config.getString(KEYSTORE_TYPE),
                clientAuth, clientCa);
    }

    public boolean enabled() {
        return !keyStore.isEmpty();
    }

    /** Never prints the password. */
    @Override
    public String toString() {
        return enabled() ? "TLS (key store " + keyStore + ", client certificates " + clientAuth + ")" : "plain HTTP";
    }
}
