package io.shardflow.app;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of a service's {@code main}: runs the long-lived service until it ends, and turns
 * start-up failures into one clear line on stderr and exit code 2, so a misconfigured container
 * fails its first start visibly instead of crash-looping with a stack trace.
 *
 * <p>SIGTERM and SIGINT ask the process to stop gracefully: the service's {@code close} finishes or
 * safely abandons its in-flight work within its shutdown timeout, and the process exits with the
 * service's own code (0 after a clean stop) rather than the JVM's 143, so an orchestrator can tell a
 * clean stop from a failed one.
 */
public final class ServiceMain {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceMain.class);
    public static final int EXIT_BAD_CONFIG = 2;

    private ServiceMain() {
    }

    /**
     * {@code --version} as the only argument: prints {@code shardflow-<name> <version>} with the Kafka
     * client's version (so the libraries beside the jar were loaded too) and returns true. The image
     * smoke test runs it through each image's entrypoint, as the image's own user.
     */
    public static boolean printVersion(String name, Class<?> main, String[] args) {
        if (args.length != 1 || !"--version".equals(args[0])) {
            return false;
        }
        String version = main.getPackage().getImplementationVersion();
        System.out.println("shardflow-" + name + " " + (version == null ? "unknown" : version) + " (kafka-clients "
                + org.apache.kafka.common.utils.AppInfoParser.getVersion() + ", Java " + Runtime.version() + ")");
        return true;
    }

    /** Starts {@code process} and blocks until it ends; returns the process exit code. */
    public static int run(String name, Supplier<RunningService> process) {
        RunningService running;
        try {
            running = process.get();
        } catch (ConfigException e) {
            System.err.println(name + ": configuration error: " + e.getMessage());
            return EXIT_BAD_CONFIG;
        } catch (StartupException e) {
            System.err.println(name + ": cannot start (check setting '" + e.setting() + "'): " + e.getMessage());
            return EXIT_BAD_CONFIG;
        }
        Runnable closeOnce = once(running::close);
        stopOnSignal("TERM", name, closeOnce);
        stopOnSignal("INT", name, closeOnce);
        // Any other way the JVM goes down (System.exit elsewhere, SIGHUP) still closes the service.
        Runtime.getRuntime().addShutdownHook(new Thread(closeOnce, name + "-shutdown"));
        try {
            running.awaitTermination();
            // A stop in progress (SIGTERM) finishes, its last log lines included, before the JVM
            // exits; only then is the exit code final (a stop that ran out of time sets 1).
            closeOnce.run();
            return running.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("{} interrupted", name);
            return 1;
        }
    }

    /**
     * Replaces the JVM's handler, which would run the shutdown hooks and exit 143 while the service
     * is still closing, with one that closes the service and lets {@link #run} return its code.
     */
    private static void stopOnSignal(String signal, String name, Runnable close) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal(signal), received -> {
                LOG.info("{}: SIG{} received, stopping", name, signal);
                new Thread(close, name + "-stop").start();
            });
        } catch (IllegalArgumentException e) {
            LOG.debug("SIG{} cannot be handled here; the shutdown hook closes {} instead", signal, name);
        }
    }

    /** Runs {@code action} the first time; a later caller waits until that first run has finished. */
    private static Runnable once(Runnable action) {
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
            synchronized (done) {
                if (done.compareAndSet(false, true)) {
                    action.run();
                }
            }
        };
    }

    /** A started process: waits for its end, and can be asked to stop. */
    public interface RunningService extends AutoCloseable {
        int awaitTermination() throws InterruptedException;

        @Override
        void close();
    }
}
