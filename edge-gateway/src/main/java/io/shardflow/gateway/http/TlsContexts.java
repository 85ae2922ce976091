package io.shardflow.gateway.http;

import io.shardflow.gateway.config.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import org.apache.kafka.common.config.ConfigException;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/** Jetty's TLS settings from {@link TlsSettings}: the key store, and the CAs device certificates must chain to. */
final class TlsContexts {

    private TlsContexts() {
    }

    /** Null when TLS is off. */
    static SslContextFactory.Server server(TlsSettings tls) {
        if (!tls.enabled()) {
            return null;
        }
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStorePath(tls.keyStore());
        ssl.setKeyStorePassword(tls.keyStorePassword());
        ssl.setKeyStoreType(tls.keyStoreType());
        ssl.setIncludeProtocols("TLSv1.3", "TLSv1.2");
        switch (tls.clientAuth()) {
            case "need" -> ssl.setNeedClientAuth(true);
            case "want" -> ssl.setWantClientAuth(true);
            default -> { }
        }
        if (!tls.clientAuth().equals("none")) {
            ssl.setTrustStore(trustStore(Path.of(tls.clientCa())));
        }
        return ssl;
    }

    private static KeyStore trustStore(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + n++, certificate);
            }
            if (n == 0) {
                throw new ConfigException(TlsSettings.CLIENT_CA, pem.toString(), "holds no certificate");
            }
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(TlsSettings.CLIENT_CA, pem.toString(), "cannot be read as PEM certificates: " + e.getMessage());
        }
    }
}
