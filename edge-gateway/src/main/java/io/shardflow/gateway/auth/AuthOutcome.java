package io.shardflow.gateway.auth;

import java.time.Duration;

/**
 * What authenticating a request gave: a device, or why not. {@code UNAUTHENTICATED} answers 401,
 * {@code FORBIDDEN} 403 (valid credentials that may not be used this way), {@code THROTTLED} 429
 * (too many failures from this address), {@code UNAVAILABLE} 503 (the token store did not answer),
 * {@code PROVIDER_UNAVAILABLE} 503 (the identity provider's keys for a JWT cannot be fetched).
 */
public record AuthOutcome(Kind kind, DeviceIdentity device, String detail, Duration retryAfter) {

    public enum Kind { AUTHENTICATED, UNAUTHENTICATED, FORBIDDEN, THROTTLED, UNAVAILABLE, PROVIDER_UNAVAILABLE }

    static AuthOutcome of(DeviceIdentity device) {
        return new AuthOutcome(Kind.AUTHENTICATED, device, "", Duration.ZERO);
    }

    static AuthOutcome refused(Kind kind, String detail) {
        return new AuthOutcome(kind, null, detail, Duration.ZERO);
    }

    static AuthOutcome throttled(Duration retryAfter) {
        return new AuthOutcome(Kind.THROTTLED, null, "too many failed authentications from this address", retryAfter);
    }

    public boolean authenticated() {
        return kind == Kind.AUTHENTICATED;
    }
}
