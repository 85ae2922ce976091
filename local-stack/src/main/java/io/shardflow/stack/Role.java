package io.shardflow.stack;

import java.util.List;
import java.util.Locale;

/** The servers of a local stack, each one process. Chaos tests stop, kill and restart them by role. */
public enum Role {
    BROKER,
    REGISTRY,
    /** S3Proxy or MinIO, see {@link S3Kind}. */
    S3,
    /** The OIDC identity provider (Keycloak) of a secure stack; a plain stack has none. */
    IDP;

    /** The servers a stack runs: every role for a secure one, all but {@link #IDP} for a plain one. */
    public static List<Role> of(boolean secure) {
        return secure ? List.of(values()) : List.of(BROKER, REGISTRY, S3);
    }

    /** Lower-case name used for log files and data directories. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
