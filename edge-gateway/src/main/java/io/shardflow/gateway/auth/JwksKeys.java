package io.shardflow.gateway.auth;

import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import io.shardflow.gateway.config.AuthSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.text.ParseException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where the keys that sign device JWTs come from: a JWK set file, or an OIDC provider's
 * {@code jwks_uri} fetched by Nimbus over TLS (trusting {@code auth.jwt.jwks.ca} when set), cached
 * for five minutes and refreshed ahead of expiry, retried once on a failed fetch, and kept through
 * an outage of the provider (outage tolerant), so a provider restart does not lock devices out.
 */
final class JwksKeys {

    private static final int TIMEOUT_MS = 5_000;
    private static final int SIZE_LIMIT_BYTES = 1 << 20;

    private JwksKeys() {
    }

    static JWKSource<SecurityContext> of(AuthSettings settings) {
        if (!settings.jwksFile().isEmpty()) {
            try {
                return new ImmutableJWKSet<>(JWKSet.load(Path.of(settings.jwksFile()).toFile()));
            } catch (IOException | ParseException e) {
                throw new ConfigException(AuthSettings.JWKS_FILE, settings.jwksFile(), "is not a readable JWK set: " + e.getMessage());
            }
        }
        URL url;
        try {
            url = URI.create(settings.jwksUrl()).toURL();
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new ConfigException(AuthSettings.JWKS_URL, settings.jwksUrl(), "is not a URL: " + e.getMessage());
        }
        SSLSocketFactory tls = settings.jwksCa().isEmpty() ? null : trusting(Path.of(settings.jwksCa())).getSocketFactory();
        DefaultResourceRetriever retriever = new DefaultResourceRetriever(TIMEOUT_MS, TIMEOUT_MS, SIZE_LIMIT_BYTES, true, tls);
        return JWKSourceBuilder.create(url, retriever).retrying(true).outageTolerant(true).build();
    }

    /**
     * Fetches the keys once; the gateway's start calls it, so a wrong or unreachable JWKS URL stops
     * the process naming the key instead of refusing every device later.
     *
     * @return how many keys the set holds
     * @throws KeySourceException when they cannot be fetched or parsed
     */
    static int fetch(JWKSource<SecurityContext> keys) throws KeySourceException {
        return keys.get(new JWKSelector(new JWKMatcher.Builder().build()), null).size();
    }

    private static SSLContext trusting(Path pemFile) {
        try (InputStream in = Files.newInputStream(pemFile)) {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trusted.setCertificateEntry("ca-" + n++, certificate);
            }
            if (n == 0) {
                throw new ConfigException(AuthSettings.JWKS_CA, pemFile.toString(), "holds no PEM certificate");
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(AuthSettings.JWKS_CA, pemFile.toString(), "cannot be read as PEM certificates: " + e.getMessage());
        }
    }
}
