package io.shardflow.stack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server as a child process: a thin wrapper on {@link ProcessBuilder} with its own log file,
 * a readiness probe and a stop that escalates from SIGTERM to SIGKILL. Subclasses say what to run
 * and how to probe it; ports and data dirs are fixed at construction so a restart reuses them.
 */
abstract class ServerProcess {

    private static final Logger log = LoggerFactory.getLogger(ServerProcess.class);
    private static final Duration POLL = Duration.ofMillis(200);

    private final Role role;
    private final Path stackDir;
    private final boolean detached;
    private Process process;

    protected ServerProcess(Role role, Path stackDir, boolean detached) {
        this.role = role;
        this.stackDir = stackDir;
        this.detached = detached;
    }

    /** Writes config files and initialises storage; idempotent, called before every start. */
    protected void prepare() throws IOException {
    }

    /** The command line. It must contain {@link #stackDir()} so {@code down} can recognise it. */
    protected abstract List<String> command();

    /** Extra environment on top of this JVM's. */
    protected Map<String, String> environment() {
        return Map.of();
    }

    /** One quick probe; never throws. */
    abstract boolean isReady();

    /** For messages: "Kafka broker", "S3Proxy"... */
    abstract String displayName();

    /** Named ports, recorded in stack.json. */
    abstract Map<String, Integer> ports();

    final Role role() {
        return role;
    }

    final Path stackDir() {
        return stackDir;
    }

    /** The server's own directory under the work dir: config, data, working directory. */
    final Path serverDir() {
        return stackDir.resolve(role.id());
    }

    final Path logFile() {
        return stackDir.resolve("logs").resolve(role.id() + ".log");
    }

    static String javaBinary() {
        return ProcessSpawner.javaBinary();
    }

    /** A JVM option that puts the work dir into a Java server's command line. */
    final String stackDirMarker() {
        return "-Dshardflow.stack.dir=" + stackDir;
    }

    /**
     * Temp files inside the work dir: Vert.x (Apicurio) leaves a /tmp/vertx-cache dir behind at
     * every kill -9, and a chaos test kills often.
     */
    final String tmpDirOption() {
        return "-Djava.io.tmpdir=" + serverDir().resolve("tmp");
    }

    synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(displayName() + " is already running, pid " + process.pid());
        }
        List<String> command = command();
        try {
            Files.createDirectories(serverDir().resolve("tmp"));
            Files.createDirectories(logFile().getParent());
            prepare();
            appendToLog("---- shardflow: starting " + displayName() + " at " + Instant.now() + ": "
                    + String.join(" ", command));
            process = ProcessSpawner.spawn(command, logFile(), serverDir(), environment(), detached);
        } catch (IOException e) {
            throw new StackException("cannot start " + displayName() + ": " + e.getMessage() + "; see " + logFile(), e);
        }
        log.info("Started {} (pid {}), log {}", displayName(), process.pid(), logFile());
    }

    /** Polls the probe until it answers, the process dies, or the timeout passes. */
    void awaitReady(Duration timeout) {
        Process p = currentProcess();
        long startNanos = System.nanoTime();
        long deadline = startNanos + timeout.toNanos();
        while (true) {
            if (!p.isAlive()) {
                throw new StackException(displayName() + " exited with code " + p.exitValue()
                        + " before it was ready; see " + logFile() + tail());
            }
            if (isReady()) {
                log.info("{} ready in {} ms (pid {})", displayName(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), p.pid());
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new StackException(displayName() + " not ready after " + timeout.toSeconds()
                        + " s (pid " + p.pid() + " still running); see " + logFile() + tail());
            }
            sleep(POLL);
        }
    }

    /** Sends SIGTERM without waiting, so several servers can shut down at the same time. */
    synchronized void requestStop() {
        if (process != null && process.isAlive()) {
            log.info("Stopping {} (pid {})", displayName(), process.pid());
            process.destroy();
        }
    }

    /** Waits for a requested stop; SIGKILL once {@code grace} has passed. */
    synchronized void awaitStop(Duration grace) {
        Process p = process;
        if (p == null) {
            return;
        }
        try {
            if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("{} (pid {}) still running {} s after SIGTERM; sending SIGKILL", displayName(), p.pid(),
                        grace.toSeconds());
                p.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
        process = null;
    }

    void stop(Duration grace) {
        requestStop();
        awaitStop(grace);
    }

    /** kill -9: no shutdown hooks, no flush; what a crash looks like to clients and to the data dir. */
    synchronized void kill() {
        Process p = currentProcess();
        log.info("Killing {} (pid {}) with SIGKILL", displayName(), p.pid());
        try {
            p.destroyForcibly().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    synchronized long pid() {
        return currentProcess().pid();
    }

    private synchronized Process currentProcess() {
        if (process == null) {
            throw new IllegalStateException(displayName() + " is not running");
        }
        return process;
    }

    private void appendToLog(String line) throws IOException {
        Files.writeString(logFile(), line + System.lineSeparator(), StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** The end of the log, appended to error messages so a CI failure shows the cause at once. */
    String tail() {
        return LogTail.of(logFile(), 25);
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StackException("interrupted while waiting", e);
        }
    }
}
