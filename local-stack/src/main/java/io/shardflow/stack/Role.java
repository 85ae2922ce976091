package io.shardflow.stack;

import java.util.Locale;

/** The servers of a local stack, each one process. Chaos tests stop, kill and restart them by role. */
public enum Role {
    BROKER,
    REGISTRY,
    /** S3Proxy or MinIO, see {@link S3Kind}. */
    S3;

    /** Lower-case name used for log files and data directories. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
