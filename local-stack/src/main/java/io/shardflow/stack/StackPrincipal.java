package io.shardflow.stack;

import java.nio.file.Path;

/**
 * The Kafka principals of a secure stack, one per role, each with only the grants its role needs
 * (docs/ARCHITECTURE.md, invariant 9). The same name is the SCRAM user and the CN of the role's
 * client certificate, so one set of ACLs covers both ways of connecting.
 */
public enum StackPrincipal {
    /** Devices: may only write {@code samples}. */
    EDGE("shardflow-edge"),
    /** ingest-app: reads samples, writes shard assignments and dead letters, its Streams topics and transactions. */
    INGEST("shardflow-ingest"),
    /** shard-sink: reads shard assignments in its consumer group. */
    SINK("shardflow-sink"),
    /** The stack's own super user: creates topics, users and ACLs; never given to a service. */
    ADMIN("shardflow-admin");

    private final String id;

    StackPrincipal(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** {@code User:<id>}, as ACLs and {@code super.users} name it. */
    public String kafkaPrincipal() {
        return "User:" + id;
    }

    /** Client properties for the SASL_SSL (SCRAM-SHA-512) listener, in a secure stack's client dir. */
    public Path scramClientConfig(Path clientDir) {
        return clientDir.resolve(id + "-scram.properties");
    }

    /** Client properties for the SSL listener with client certificates (mTLS). */
    public Path mtlsClientConfig(Path clientDir) {
        return clientDir.resolve(id + "-mtls.properties");
    }
}
