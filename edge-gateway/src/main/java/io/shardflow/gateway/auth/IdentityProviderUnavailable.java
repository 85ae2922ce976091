package io.shardflow.gateway.auth;

/**
 * The keys a JWT must be checked with cannot be fetched from the identity provider now: the device's
 * token may well be valid, so it is told to retry (503), never that its credentials are bad (401).
 */
public final class IdentityProviderUnavailable extends RuntimeException {

    public IdentityProviderUnavailable(String message, Throwable cause) {
        super(message, cause);
    }
}
