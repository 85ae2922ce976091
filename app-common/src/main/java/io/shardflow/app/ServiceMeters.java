package io.shardflow.app;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The meters every long-running service exposes besides its own: the JVM and process meters of
 * Micrometer's standard binders (heap, GC, threads, CPU, file descriptors, uptime) and whether the
 * service is ready, so an operator's dashboard and alerts see the same thing {@code /ready} answers.
 */
public final class ServiceMeters implements AutoCloseable {

    /** 1 while the service is connected and has work assigned (what {@code /ready} answers 200 for), else 0. */
    public static final String READY = "shardflow.service.ready";

    private final List<MeterBinder> binders;

    private ServiceMeters(List<MeterBinder> binders) {
        this.binders = binders;
    }

    /** Binds the standard binders and the readiness gauge to {@code registry}. */
    public static ServiceMeters bind(MeterRegistry registry, BooleanSupplier ready) {
        List<MeterBinder> binders = standardBinders();
        binders.forEach(binder -> binder.bindTo(registry));
        Gauge.builder(READY, ready, check -> isTrue(check) ? 1 : 0)
                .description("1 while the service is connected and has work assigned (GET /ready answers 200), else 0")
                .strongReference(true) // the supplier is often a lambda no one else holds
                .register(registry);
        return new ServiceMeters(binders);
    }

    /** Micrometer's JVM and process binders, in the order they are bound (the metrics reference names them). */
    public static List<MeterBinder> standardBinders() {
        return List.of(new JvmMemoryMetrics(), new JvmGcMetrics(), new JvmThreadMetrics(), new ClassLoaderMetrics(),
                new JvmInfoMetrics(), new ProcessorMetrics(), new UptimeMetrics(), new FileDescriptorMetrics());
    }

    private static boolean isTrue(BooleanSupplier check) {
        try {
            return check.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Stops the GC listener (the other binders hold nothing). */
    @Override
    public void close() {
        for (MeterBinder binder : binders) {
            if (binder instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    // a listener that cannot be removed only keeps counting into a registry no one scrapes
                }
            }
        }
    }
}
