package io.shardflow.stack;

import java.nio.file.Path;

/**
 * The OIDC clients of a secure stack's identity provider, one per principal, each authenticating
 * with OAuth2 client credentials (docs/ARCHITECTURE.md § 6). The registry authorizes by the realm
 * role in the token: only the admin (an operator or a CI job) registers schemas; the services,
 * devices and trainers only read them (invariant 9).
 */
public enum IdentityClient {
    /** Devices: look up the schema they frame samples with; register nothing (auto-register off). */
    EDGE("shardflow-edge", RegistryRole.READ_ONLY),
    /** ingest-app: decodes samples by content id. */
    INGEST("shardflow-ingest", RegistryRole.READ_ONLY),
    /** shard-sink: decodes the samples a shard names. */
    SINK("shardflow-sink", RegistryRole.READ_ONLY),
    /** Trainers and operators' read-only tools. */
    TRAINER("shardflow-trainer", RegistryRole.READ_ONLY),
    /** Registers and evolves schemas; never given to a service or a device. */
    ADMIN("shardflow-admin", RegistryRole.ADMIN);

    /** Apicurio 3's role names, as its {@code apicurio.auth.roles.*} settings name them by default. */
    public enum RegistryRole {
        READ_ONLY("sr-readonly"),
        DEVELOPER("sr-developer"),
        ADMIN("sr-admin");

        private final String roleName;

        RegistryRole(String roleName) {
            this.roleName = roleName;
        }

        public String roleName() {
            return roleName;
        }
    }

    private final String clientId;
    private final RegistryRole registryRole;

    IdentityClient(String clientId, RegistryRole registryRole) {
        this.clientId = clientId;
        this.registryRole = registryRole;
    }

    public String clientId() {
        return clientId;
    }

    public RegistryRole registryRole() {
        return registryRole;
    }

    /**
     * The registry settings of this client in a secure stack's client dir: {@code registry.auth.*}
     * (OAuth2 client credentials) and {@code registry.tls.*} (the stack's CA), as ingest-app,
     * shard-sink and the Python edge SDK take them. Owner-only: it holds the client secret.
     */
    public Path registryConfig(Path clientDir) {
        return clientDir.resolve(clientId + "-registry.properties");
    }

    /** The client of the same name as a Kafka principal. */
    public static IdentityClient of(StackPrincipal principal) {
        switch (principal) {
            case EDGE:
                return EDGE;
            case INGEST:
                return INGEST;
            case SINK:
                return SINK;
            case ADMIN:
                return ADMIN;
            default:
                throw new IllegalArgumentException("no identity client for " + principal);
        }
    }
}
