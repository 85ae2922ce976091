package io.shardflow.gateway.health;

import java.time.Duration;

/**
 * One thing the gateway cannot serve without (the broker, the schema registry), as last seen: up or
 * down, and when to probe it next. It is down after {@value #FAILURES_TO_DOWN} probes in a row found
 * it silent (one slow answer on a busy machine is not an outage). Evidence from real traffic counts as much as a probe: a record
 * acknowledged proves the broker works, so a busy gateway probes nothing; a failed delivery asks for
 * a probe at once. A dependency found down is probed again after a backoff that doubles up to
 * {@code maxBackoff}, so a broken dependency is not hammered by every gateway instance.
 */
final class Dependency {

    static final int FAILURES_TO_DOWN = 2;

    private final String name;
    private final DependencyProbe probe;
    private final long intervalNanos;
    private final long firstBackoffNanos;
    private final long maxBackoffNanos;

    private volatile boolean up = true;
    private volatile String lastFailure = "";
    private long nextProbeNanos;
    private boolean probeRequested;
    private int failures;

    Dependency(String name, DependencyProbe probe, Duration interval, Duration firstBackoff, Duration maxBackoff, long nowNanos) {
        this.name = name;
        this.probe = probe;
        this.intervalNanos = interval.toNanos();
        this.firstBackoffNanos = firstBackoff.toNanos();
        this.maxBackoffNanos = maxBackoff.toNanos();
        this.nextProbeNanos = nowNanos + intervalNanos; // the start-up checks just reached it
    }

    String name() {
        return name;
    }

    boolean up() {
        return up;
    }

    String lastFailure() {
        return lastFailure;
    }

    /** Traffic (or a probe) proved it works: no probe is needed for another interval. */
    synchronized void proven(long nowNanos) {
        up = true;
        failures = 0;
        probeRequested = false;
        nextProbeNanos = nowNanos + intervalNanos;
    }

    /** Traffic failed on it: probe at the next tick, unless it is already known down (then its backoff holds). */
    synchronized void suspect() {
        if (up) {
            probeRequested = true;
        }
    }

    /** Probes it when it is due; returns whether it changed between up and down. */
    boolean probeIfDue(long nowNanos, java.util.function.LongSupplier clock) {
        synchronized (this) {
            if (!probeRequested && nowNanos < nextProbeNanos) {
                return false;
            }
            probeRequested = false;
        }
        String failure = null;
        try {
            probe.check();
        } catch (Exception e) {
            failure = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
        long after = clock.getAsLong();
        synchronized (this) {
            boolean wasUp = up;
            if (failure == null) {
                proven(after);
            } else {
                lastFailure = failure;
                long backoff = Math.min(maxBackoffNanos, firstBackoffNanos << Math.min(failures, 20));
                failures++;
                up = up && failures < FAILURES_TO_DOWN;
                nextProbeNanos = after + backoff;
            }
            return wasUp != up;
        }
    }
}
