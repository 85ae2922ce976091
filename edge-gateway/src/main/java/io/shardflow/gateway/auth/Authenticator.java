package io.shardflow.gateway.auth;

import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.gateway.quota.FailureLimiter;
import java.security.cert.X509Certificate;
import java.util.Locale;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a request's {@code Authorization: Bearer ...} header (and its client certificate, when
 * mTLS is on) into a device. A JWT goes to the {@link JwtAuthenticator} when one is configured, a
 * device token to the {@link TokenAuthenticator}. Failures are counted per client address: past
 * the limit the address is refused before its credentials are even looked at, so guessing tokens
 * is rate limited. A client certificate, when there is one, must name the same device (its CN).
 */
public final class Authenticator {

    private static final Logger LOG = LoggerFactory.getLogger(Authenticator.class);
    private static final String BEARER = "bearer ";

    private final TokenAuthenticator tokens;
    private final JwtAuthenticator jwts;
    private final FailureLimiter failures;

    /** @param jwts null when JWTs are not accepted */
    public Authenticator(TokenAuthenticator tokens, JwtAuthenticator jwts, FailureLimiter failures) {
        this.tokens = tokens;
        this.jwts = jwts;
        this.failures = failures;
    }

    public AuthOutcome authenticate(String authorization, String clientAddress, Optional<X509Certificate> clientCertificate) {
        var blocked = failures.blockedFor(clientAddress);
        if (blocked.isPresent()) {
            return AuthOutcome.throttled(blocked.get());
        }
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
            return fail(clientAddress, "an Authorization: Bearer <token> header is required");
        }
        String credential = authorization.substring(BEARER.length()).strip();
        Optional<DeviceIdentity> device;
        try {
            device = jwts != null && JwtAuthenticator.looksLikeJwt(credential) ? jwts.authenticate(credential) : tokens.authenticate(credential);
        } catch (ObjectStoreException e) {
            LOG.warn("token store unavailable: {}", e.getMessage());
            return AuthOutcome.refused(AuthOutcome.Kind.UNAVAILABLE, "the token store cannot be reached");
        } catch (IdentityProviderUnavailable e) {
            // not counted as a failure: the token may be valid, and its device is told to retry
            LOG.warn("JWT not checked: {}", e.getMessage());
            return AuthOutcome.refused(AuthOutcome.Kind.PROVIDER_UNAVAILABLE, "the identity provider's keys cannot be fetched now; retry");
        }
        if (device.isEmpty()) {
            return fail(clientAddress, "the bearer token is not valid (unknown, revoked, expired or malformed)");
        }
        if (clientCertificate.isPresent()) {
            String commonName = commonName(clientCertificate.get());
            if (!device.get().deviceId().equals(commonName)) {
                return AuthOutcome.refused(AuthOutcome.Kind.FORBIDDEN, "the client certificate names another device than the token");
            }
        }
        return AuthOutcome.of(device.get());
    }

    private AuthOutcome fail(String clientAddress, String detail) {
        failures.recordFailure(clientAddress);
        return AuthOutcome.refused(AuthOutcome.Kind.UNAUTHENTICATED, detail);
    }

    static String commonName(X509Certificate certificate) {
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return rdn.getValue().toString();
                }
            }
        } catch (InvalidNameException e) {
            return "";
        }
        return "";
    }
}
