package io.shardflow.stack;

import java.nio.file.Path;

/**
 * Where a secure stack's OIDC identity provider (Keycloak) is, and its administrator's credentials:
 * for tests and tools that mint tokens or manage clients of the stack's realm. Never printed whole.
 *
 * @param issuer        {@code https://127.0.0.1:PORT/realms/shardflow}, the {@code iss} of every token
 * @param caFile        the CA (PEM) its certificate comes from
 * @param adminUser     Keycloak's bootstrap administrator, in the {@code master} realm
 * @param adminPassword that administrator's password (random, from the owner-only secrets file)
 */
public record IdentityProvider(String issuer, Path caFile, String adminUser, String adminPassword) {

    /** The realm's name, under {@link #baseUrl()}. */
    public String realm() {
        return StackIdentity.REALM;
    }

    /** {@code https://127.0.0.1:PORT}: Keycloak's root, under which {@code /admin} and {@code /realms} are. */
    public String baseUrl() {
        return issuer.substring(0, issuer.indexOf("/realms/"));
    }

    public String tokenEndpoint() {
        return issuer + "/protocol/openid-connect/token";
    }

    /** The audience the registry requires of a token. */
    public String registryAudience() {
        return StackIdentity.REGISTRY_AUDIENCE;
    }

    @Override
    public String toString() {
        return "IdentityProvider[issuer=" + issuer + ", adminUser=" + adminUser + "]";
    }
}
