package io.shardflow.gateway.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.shardflow.gateway.config.AuthSettings;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;

/**
 * Verifies OIDC/JWT bearer tokens with Nimbus JOSE+JWT: the signature against the configured JWKS
 * (a file, or an OIDC provider's jwks_uri, fetched and cached by Nimbus), then issuer, audience,
 * expiry and the device claim. The datasets claim scopes the device like a token's allow-list.
 */
public final class JwtAuthenticator {

    private static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512, JWSAlgorithm.PS256, JWSAlgorithm.EdDSA);

    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    private final AuthSettings settings;

    public JwtAuthenticator(AuthSettings settings) {
        this.settings = settings;
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys(settings)));
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(settings.audience(),
                new JWTClaimsSet.Builder().issuer(settings.issuer()).build(), Set.of("exp", settings.deviceClaim())));
    }

    private static JWKSource<SecurityContext> keys(AuthSettings settings) {
        if (!settings.jwksFile().isEmpty()) {
            try {
                return new ImmutableJWKSet<>(JWKSet.load(Path.of(settings.jwksFile()).toFile()));
            } catch (IOException | ParseException e) {
                throw new ConfigException(AuthSettings.JWKS_FILE, settings.jwksFile(), "is not a readable JWK set: " + e.getMessage());
            }
        }
        try {
            return JWKSourceBuilder.create(URI.create(settings.jwksUrl()).toURL()).retrying(true).build();
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new ConfigException(AuthSettings.JWKS_URL, settings.jwksUrl(), "is not a URL: " + e.getMessage());
        }
    }

    /** Whether {@code token} has the shape of a JWS (three base64url parts). */
    public static boolean looksLikeJwt(String token) {
        return token.chars().filter(c -> c == '.').count() == 2;
    }

    /** The device the JWT proves, or empty when it is not valid for this gateway. */
    public Optional<DeviceIdentity> authenticate(String token) {
        JWTClaimsSet claims;
        try {
            claims = processor.process(token, null);
        } catch (ParseException | BadJOSEException | JOSEException e) {
            return Optional.empty();
        }
        Object device = claims.getClaim(settings.deviceClaim());
        if (!(device instanceof String deviceId) || deviceId.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(new DeviceIdentity(deviceId, datasets(claims.getClaim(settings.datasetsClaim())), "jwt",
                claims.getJWTID() == null ? "" : claims.getJWTID(), null, null));
    }

    private static Set<String> datasets(Object claim) {
        Set<String> datasets = new HashSet<>();
        if (claim instanceof String single) {
            datasets.add(single);
        } else if (claim instanceof List<?> list) {
            list.stream().filter(String.class::isInstance).map(String.class::cast).forEach(datasets::add);
        }
        return datasets;
    }
}
