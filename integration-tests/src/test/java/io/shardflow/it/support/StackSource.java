package io.shardflow.it.support;

/**
 * Where {@link TestStack} gets its broker, registry and S3 server: local processes (the local-stack
 * module) or containers on the locally built images ({@link ContainerStack}).
 */
public enum StackSource {
    LOCAL_PROCESSES,
    CONTAINERS
}
