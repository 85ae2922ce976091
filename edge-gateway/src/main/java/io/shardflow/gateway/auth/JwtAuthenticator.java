package io.shardflow.gateway.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.shardflow.gateway.config.AuthSettings;
import java.text.ParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Verifies OIDC/JWT bearer tokens with Nimbus JOSE+JWT: the signature against the configured JWKS
 * ({@link JwksKeys}), then issuer, audience, expiry (with {@code auth.jwt.clock.skew.seconds}) and
 * the device claim. The datasets claim scopes the device like a token's allow-list. A token whose
 * keys cannot be fetched is neither valid nor invalid: {@link IdentityProviderUnavailable}.
 */
public final class JwtAuthenticator {

    private static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512, JWSAlgorithm.PS256, JWSAlgorithm.EdDSA);

    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    private final JWKSource<SecurityContext> keys;
    private final AuthSettings settings;

    public JwtAuthenticator(AuthSettings settings) {
        this.settings = settings;
        this.keys = JwksKeys.of(settings);
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
        DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(settings.audience(),
                new JWTClaimsSet.Builder().issuer(settings.issuer()).build(), Set.of("exp", settings.deviceClaim()));
        claims.setMaxClockSkew((int) settings.clockSkew().toSeconds());
        processor.setJWTClaimsSetVerifier(claims);
    }

    /**
     * Fetches the keys now (the gateway's start-up check).
     *
     * @return how many keys the provider publishes
     * @throws IdentityProviderUnavailable when they cannot be fetched, or there are none
     */
    public int fetchKeys() {
        int count;
        try {
            count = JwksKeys.fetch(keys);
        } catch (KeySourceException e) {
            throw new IdentityProviderUnavailable("cannot fetch the JWK set: " + rootMessage(e), e);
        }
        if (count == 0) {
            throw new IdentityProviderUnavailable("the JWK set holds no key", null);
        }
        return count;
    }

    /** Whether {@code token} has the shape of a JWS (three base64url parts). */
    public static boolean looksLikeJwt(String token) {
        return token.chars().filter(c -> c == '.').count() == 2;
    }

    /**
     * The device the JWT proves, or empty when it is not valid for this gateway.
     *
     * @throws IdentityProviderUnavailable when the keys to check it with cannot be fetched now
     */
    public Optional<DeviceIdentity> authenticate(String token) {
        JWTClaimsSet claims;
        try {
            claims = processor.process(token, null);
        } catch (KeySourceException e) {
            throw new IdentityProviderUnavailable("the identity provider's keys cannot be fetched: " + rootMessage(e), e);
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

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
