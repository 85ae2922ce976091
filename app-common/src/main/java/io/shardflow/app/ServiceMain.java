package io.shardflow.app;

import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of a service's {@code main}: runs the long-lived service until it ends, and turns
 * start-up failures into one clear line on stderr and exit code 2, so a misconfigured container
 * fails its first start visibly instead of crash-looping with a stack trace.
 */
public final class ServiceMain {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceMain.class);
    public static final int EXIT_BAD_CONFIG = 2;

    private ServiceMain() {
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
        Runtime.getRuntime().addShutdownHook(new Thread(running::close, name + "-shutdown"));
        try {
            return running.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("{} interrupted", name);
            return 1;
        }
    }

    /** A started process: waits for its end, and can be asked to stop. */
    public interface RunningService extends AutoCloseable {
        int awaitTermination() throws InterruptedException;

        @Override
        void close();
    }
}
