package io.shardflow.stack;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");

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

    /** The java launcher of this JVM, so servers run on the same JDK as the tests. */
    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
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
            ProcessBuilder builder = new ProcessBuilder(launcher(command))
                    .directory(serverDir().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                    // no stdin pipe: a detached server must not depend on this JVM's end of it
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            builder.environment().putAll(environment());
            process = builder.start();
        } catch (IOException e) {
            throw new StackException("cannot start " + displayName() + ": " + e.getMessage() + "; see " + logFile(), e);
        }
        log.info("Started {} (pid {}), log {}", displayName(), process.pid(), logFile());
    }

    /**
     * Detached: the server gets its own session ({@code setsid}), so neither a terminal hang-up
     * nor a Ctrl-C aimed at the launching command reaches it.
     *
     * <p>Attached: {@code setpriv --pdeathsig KILL} makes the kernel kill the server when the
     * thread that spawned it dies, so a test JVM that is itself killed (a surefire timeout, kill -9)
     * leaves no server behind; a shutdown hook would not run then. LocalStack spawns from one
     * long-lived thread for that reason.
     *
     * <p>Both tools (util-linux, always on Debian) exec the command, so the recorded pid is the
     * server's: setsid only forks when the caller leads its process group, which a JVM child never does.
     */
    private List<String> launcher(List<String> command) {
        List<String> prefix = detached ? List.of(SETSID.toString())
                : List.of(SETPRIV.toString(), "--pdeathsig", "KILL", "--");
        Path tool = Path.of(prefix.get(0));
        if (!Files.isExecutable(tool)) {
            log.warn("{} not found; {} runs without it{}", tool, displayName(),
                    detached ? " and may stop when this terminal closes" : " and may outlive a killed JVM");
            return command;
        }
        List<String> launched = new ArrayList<>(prefix);
        launched.addAll(command);
        return launched;
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
