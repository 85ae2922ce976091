package io.shardflow.gateway.health;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardflow.gateway.publish.PublishObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the gateway can serve, for {@code /ready}: the broker and the schema registry were
 * reached recently, by traffic or by a cheap probe ({@link Dependency}). A gateway that could only
 * answer 503 is not ready, so Kubernetes routes devices to one that can; it comes back by itself
 * once its probes succeed. The object store is not asked: dataset specs and device tokens are
 * cached, and a short outage of it is answered per request (503 STORE_UNAVAILABLE).
 */
public final class Readiness implements PublishObserver, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);
    private static final Duration TICK = Duration.ofMillis(200);

    private final Dependency broker;
    private final Dependency registry;
    private final List<Dependency> dependencies;
    private final LongSupplier nanoTime;
    private ScheduledExecutorService probes;

    /**
     * @param interval   how long without proof before a dependency is probed
     * @param maxBackoff the longest wait between probes of a dependency that is down
     */
    public Readiness(DependencyProbe brokerProbe, DependencyProbe registryProbe, Duration interval, Duration maxBackoff,
                     LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        Duration firstBackoff = Duration.ofMillis(Math.min(1_000, interval.toMillis()));
        long now = nanoTime.getAsLong();
        this.broker = new Dependency("broker", brokerProbe, interval, firstBackoff, maxBackoff, now);
        this.registry = new Dependency("registry", registryProbe, interval, firstBackoff, maxBackoff, now);
        this.dependencies = List.of(broker, registry);
    }

    /** Registers {@code shardflow_gateway_dependency_up{dependency}} (1 up, 0 down). */
    public Readiness bind(MeterRegistry meters) {
        for (Dependency dependency : dependencies) {
            Gauge.builder("shardflow.gateway.dependency.up", dependency, d -> d.up() ? 1 : 0)
                    .description("whether the gateway reached this dependency recently (broker, registry); /ready needs all")
                    .tag("dependency", dependency.name()).register(meters);
        }
        return this;
    }

    /** Starts the probe thread (a daemon: probes never hold the process up). */
    public Readiness start() {
        probes = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "gateway-readiness");
            thread.setDaemon(true);
            return thread;
        });
        probes.scheduleWithFixedDelay(this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** Probes every dependency that is due; public for tests that drive the clock. */
    public void tick() {
        for (Dependency dependency : dependencies) {
            try {
                if (dependency.probeIfDue(nanoTime.getAsLong(), nanoTime)) {
                    if (dependency.up()) {
                        LOG.info("{} reachable again: ready", dependency.name());
                    } else {
                        LOG.warn("{} unreachable, not ready until it answers: {}", dependency.name(), dependency.lastFailure());
                    }
                }
            } catch (RuntimeException e) {
                LOG.warn("readiness probe of {} failed unexpectedly", dependency.name(), e);
            }
        }
    }

    public boolean isReady() {
        return broker.up() && registry.up();
    }

    public boolean brokerUp() {
        return broker.up();
    }

    public boolean registryUp() {
        return registry.up();
    }

    @Override
    public void acknowledged() {
        long now = nanoTime.getAsLong();
        broker.proven(now);
        registry.proven(now); // the record was serialized: its schema was resolved
    }

    @Override
    public void brokerFailed() {
        broker.suspect();
    }

    @Override
    public void registryFailed() {
        registry.suspect();
    }

    @Override
    public void close() {
        if (probes != null) {
            probes.shutdownNow();
        }
    }
}
