package io.shardflow.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A shardflow service (ingest-app, shard-sink, or a harness build of one) run as its own JVM from
 * this JVM's classpath, the way it runs in production: its own process, config file and log. Used
 * by the quickstart, the benchmark, the chaos harness and tests that must kill a real process; the
 * chaos harness also freezes (SIGSTOP) and thaws (SIGCONT) it and restarts it with the same settings.
 *
 * <p>Spawned attached through {@link ProcessSpawner}, so the kernel kills it when this JVM dies,
 * even by kill -9: a crashed test leaves no service behind. Its command line carries
 * {@code -Dshardflow.app.dir=<work dir>} to recognise it in {@code ps}.
 */
public final class ServiceProcess implements AutoCloseable {

    /** Heap and GC of a service JVM unless the caller says otherwise. */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC");

    private final String name;
    private final Process process;
    private final Path log;
    private final List<String> command;
    private final long logStart;

    private ServiceProcess(String name, Process process, Path log, List<String> command, long logStart) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.command = command;
        this.logStart = logStart;
    }

    public static ServiceProcess start(String name, String mainClass, Map<String, String> settings, Path workDir) {
        return start(name, mainClass, settings, workDir, DEFAULT_JVM_OPTIONS, List.of());
    }

    /**
     * Writes {@code settings} to {@code <workDir>/<name>.properties} and runs
     * {@code mainClass <that file> arguments...}.
     *
     * @param jvmOptions heap, GC and other options of the service's JVM
     */
    public static ServiceProcess start(String name, String mainClass, Map<String, String> settings, Path workDir,
                                       List<String> jvmOptions, List<String> arguments) {
        return start(name, mainClass, settings, workDir, jvmOptions, arguments, false);
    }

    /**
     * As {@link #start(String, String, Map, Path, List, List)}; a {@code detached} service outlives
     * this JVM (see {@link ProcessSpawner}), as {@code stack up --gateway} leaves the gateway running.
     */
    public static ServiceProcess start(String name, String mainClass, Map<String, String> settings, Path workDir,
                                       List<String> jvmOptions, List<String> arguments, boolean detached) {
        return start(name, mainClass, settings, workDir, jvmOptions, arguments, detached, List.of(), System.getProperty("java.class.path"));
    }

    /**
     * As {@link #start(String, String, Map, Path, List, List)}, on {@code classpath} and run through
     * {@code launcher}: a command prefix that ends by exec'ing the rest, so the recorded pid stays the
     * service's (the benchmark enters a cgroup this way, so a CPU quota holds from the JVM's first
     * instruction and the JVM sizes itself by it).
     */
    public static ServiceProcess start(String name, String mainClass, Map<String, String> settings, Path workDir,
                                       List<String> jvmOptions, List<String> launcher, String classpath) {
        return start(name, mainClass, settings, workDir, jvmOptions, List.of(), false, launcher, classpath);
    }

    private static ServiceProcess start(String name, String mainClass, Map<String, String> settings, Path workDir, List<String> jvmOptions,
                                        List<String> arguments, boolean detached, List<String> launcher, String classpath) {
        try {
            Files.createDirectories(workDir);
            Path config = workDir.resolve(name + ".properties");
            Properties props = new Properties();
            props.putAll(settings);
            StringWriter text = new StringWriter();
            props.store(text, name + " settings");
            OwnerOnlyFiles.write(config, text.toString()); // holds the S3 secret key
            List<String> command = new ArrayList<>(launcher);
            command.add(ProcessSpawner.javaBinary());
            command.addAll(jvmOptions);
            command.addAll(List.of("-Dshardflow.log.level=INFO", "-Dshardflow.app.dir=" + workDir.toAbsolutePath().normalize(),
                    "-cp", classpath, mainClass, config.toString()));
            command.addAll(arguments);
            return launch(name, workDir.resolve(name + ".log"), command, detached);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    private static ServiceProcess launch(String name, Path log, List<String> command, boolean detached) throws IOException {
        long logStart = Files.exists(log) ? Files.size(log) : 0;
        Process process = ProcessSpawner.spawn(command, log, null, Map.of(), detached);
        return new ServiceProcess(name, process, log, command, logStart);
    }

    /** A new process with the same command, config file and log (appended to); this one must have ended. */
    public ServiceProcess restart() {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " (pid " + pid() + ") is still running");
        }
        try {
            return launch(name, log, command, false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restart " + name, e);
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code, or -1 while it runs. */
    public int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    public Path log() {
        return log;
    }

    /** What this process (not earlier ones sharing the log file) wrote to its log so far. */
    public String ownLog() {
        try {
            byte[] all = Files.readAllBytes(log);
            int from = (int) Math.min(logStart, all.length);
            return new String(all, from, all.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Fails with the end of the log if the process has already exited. */
    public void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with code " + process.exitValue() + LogTail.of(log, 20));
        }
    }

    /** SIGKILL, as a crash would. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(10));
    }

    /** SIGSTOP: the process is frozen, as a long GC pause or a stalled VM would freeze it. */
    public void suspend() {
        signal("STOP");
    }

    /** SIGCONT after {@link #suspend()} (or after the process stopped itself). */
    public void resume() {
        signal("CONT");
    }

    /** Whether the process is stopped by a signal (state T in /proc). */
    public boolean isSuspended() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
            int end = stat.lastIndexOf(')');
            return end > 0 && end + 2 < stat.length() && stat.charAt(end + 2) == 'T';
        } catch (IOException e) {
            return false;
        }
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send SIG" + signal + " to " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            if (isSuspended()) {
                resume(); // a stopped process would not act on SIGTERM
            }
            process.destroy();
            if (!waitFor(Duration.ofSeconds(30))) {
                kill();
            }
        }
    }

    public boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
