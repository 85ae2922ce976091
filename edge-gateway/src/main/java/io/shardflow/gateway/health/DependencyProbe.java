package io.shardflow.gateway.health;

/** A cheap check of one dependency: returns when it answers, throws with the reason when it does not. */
@FunctionalInterface
public interface DependencyProbe {
    void check() throws Exception;
}
