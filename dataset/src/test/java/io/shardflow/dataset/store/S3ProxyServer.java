package io.shardflow.dataset.store;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real S3Proxy (filesystem backend) on 127.0.0.1 for tests that measure or exercise a real S3 HTTP
 * path without the whole local stack. Uses the jar scripts/fetch-tools.sh installed
 * ({@code ~/.cache/shardflow/tools/s3proxy-4.1.0.jar}, or {@code $SHARDFLOW_TOOLS}); {@link #close()}
 * stops the process.
 */
public final class S3ProxyServer implements AutoCloseable {

    public static final String ACCESS_KEY = "shardflow";
    public static final String SECRET_KEY = "shardflow-secret";

    private final Process process;
    private final String endpoint;

    private S3ProxyServer(Process process, String endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    /** The jar, if the tools are installed. */
    public static Optional<Path> jar() {
        String tools = System.getenv("SHARDFLOW_TOOLS");
        Path dir = tools == null || tools.isBlank()
                ? Path.of(System.getProperty("user.home"), ".cache", "shardflow", "tools") : Path.of(tools);
        Path jar = dir.resolve("s3proxy-4.1.0.jar");
        return Files.isRegularFile(jar) ? Optional.of(jar) : Optional.empty();
    }

    /** Starts S3Proxy with its data and log under {@code dir} and waits until it answers (at most 60 s). */
    public static S3ProxyServer start(Path dir) throws IOException, InterruptedException {
        Path jar = jar().orElseThrow(() -> new IllegalStateException("no S3Proxy jar: run scripts/fetch-tools.sh"));
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + port;
        Path data = Files.createDirectories(dir.resolve("data"));
        Path conf = dir.resolve("s3proxy.conf");
        Files.writeString(conf, String.join("\n",
                "s3proxy.endpoint=" + endpoint,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + ACCESS_KEY,
                "s3proxy.credential=" + SECRET_KEY,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + data,
                ""), StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(List.of(java, "-Xmx512m", "-XX:+UseSerialGC",
                "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
                "-jar", jar.toString(), "--properties", conf.toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("s3proxy.log").toFile())
                .start();
        S3ProxyServer server = new S3ProxyServer(process, endpoint);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!server.answers()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new IllegalStateException("S3Proxy did not start; see " + dir.resolve("s3proxy.log"));
            }
            Thread.sleep(100);
        }
        return server;
    }

    public String endpoint() {
        return endpoint;
    }

    /** A connected store on {@code bucket}, created if needed. */
    public S3ObjectStore store(String bucket) {
        S3ObjectStore store = S3ObjectStore.connect(new S3Settings(endpoint, ACCESS_KEY, SECRET_KEY, bucket, "us-east-1"));
        store.ensureBucket();
        return store;
    }

    private boolean answers() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(endpoint + "/").toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(1000);
            return c.getResponseCode() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
