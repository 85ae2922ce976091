package io.shardflow.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A shardflow service (ingest-app or shard-sink) run as its own JVM from this JVM's classpath, the
 * way it runs in production: its own process, config file and log. Used by the quickstart and by
 * tests that must kill a real process.
 */
final class AppProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;

    private AppProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static AppProcess start(String name, String mainClass, Map<String, String> settings, Path workDir) {
        try {
            Files.createDirectories(workDir);
            Path config = workDir.resolve(name + ".properties");
            Properties props = new Properties();
            props.putAll(settings);
            try (Writer out = Files.newBufferedWriter(config)) {
                props.store(out, name + " settings");
            }
            Path log = workDir.resolve(name + ".log");
            List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx512m", "-XX:+UseSerialGC", "-Dshardflow.log.level=INFO",
                    "-cp", System.getProperty("java.class.path"), mainClass, config.toString()));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            return new AppProcess(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    /** Fails with the end of the log if the process has already exited. */
    void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with code " + process.exitValue() + "; last log lines:\n"
                    + tail(log, 20));
        }
    }

    /** SIGKILL, as a crash would. */
    void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(10));
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            if (!waitFor(Duration.ofSeconds(30))) {
                kill();
            }
        }
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }
}
