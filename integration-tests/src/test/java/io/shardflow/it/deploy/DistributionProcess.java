package io.shardflow.it.deploy;

import io.shardflow.stack.OwnerOnlyFiles;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A service run from its distribution ({@code java -jar <module>/target/dist/<artifact>.jar}), the
 * way an image runs it: its own JVM, config file and stdout log. {@link #terminate} sends SIGTERM.
 */
final class DistributionProcess implements AutoCloseable {

    private final String name;
    private final List<String> command;
    private final Path log;
    private final int metricsPort;
    private Process process;

    private DistributionProcess(String name, List<String> command, Path log, int metricsPort) {
        this.name = name;
        this.command = command;
        this.log = log;
        this.metricsPort = metricsPort;
    }

    /** @param module ingest-app or shard-sink; its distribution must have been built by {@code mvn package} */
    static DistributionProcess start(String module, Map<String, String> settings, int metricsPort, Path workDir) throws IOException {
        Path jar = Path.of(System.getProperty("shardflow.repo", ".."), module, "target", "dist", "shardflow-" + module + ".jar")
                .toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: run mvn package first");
        }
        Files.createDirectories(workDir);
        Path config = workDir.resolve(module + ".properties");
        Properties props = new Properties();
        props.putAll(settings);
        props.put("metrics.port", Integer.toString(metricsPort));
        // The settings hold the S3 secret key: owner-only, like every file the stack writes.
        StringWriter text = new StringWriter();
        props.store(text, module);
        OwnerOnlyFiles.write(config, text.toString());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        DistributionProcess started = new DistributionProcess(module,
                List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-jar", jar.toString(), config.toString()),
                workDir.resolve(module + ".log"), metricsPort);
        started.launch();
        return started;
    }

    private void launch() throws IOException {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** A new process with the same command and config after this one ended. */
    void restart() throws IOException {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        launch();
    }

    /** The HTTP status of {@code /ready}, or -1 while nothing answers. */
    int readyStatus() {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/ready"))
                    .timeout(Duration.ofSeconds(2)).build();
            return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Sends SIGTERM and waits for the exit; returns how long the process took to end. */
    Stopped terminate(Duration wait) throws InterruptedException {
        long started = System.nanoTime();
        process.destroy();
        if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still runs " + wait.toSeconds() + " s after SIGTERM; log " + log);
        }
        return new Stopped(process.exitValue(), Duration.ofNanos(System.nanoTime() - started));
    }

    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path logFile() {
        return log;
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    record Stopped(int exitCode, Duration took) {
    }
}
