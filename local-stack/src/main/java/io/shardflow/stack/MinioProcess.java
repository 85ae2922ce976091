package io.shardflow.stack;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** MinIO in single-drive mode, both its API and console bound to 127.0.0.1. */
final class MinioProcess extends S3ServerProcess {

    private final Path binary;
    private final int consolePort;

    MinioProcess(Path stackDir, boolean detached, Path binary, int port, int consolePort, String accessKey,
            String secretKey) {
        super(stackDir, detached, port, accessKey, secretKey);
        this.binary = binary;
        this.consolePort = consolePort;
    }

    @Override
    S3Kind kind() {
        return S3Kind.MINIO;
    }

    @Override
    String displayName() {
        return "MinIO";
    }

    @Override
    Map<String, Integer> ports() {
        return Map.of("s3", port(), "console", consolePort);
    }

    @Override
    boolean isReady() {
        return probe(endpoint());
    }

    static boolean probe(String endpoint) {
        return Probes.httpStatus(URI.create(endpoint + "/minio/health/live")) == 200;
    }

    @Override
    protected void prepare() throws IOException {
        Files.createDirectories(dataDir());
    }

    @Override
    protected List<String> command() {
        String host = StackPorts.HOST;
        // --certs-dir: MinIO would otherwise create ~/.minio; everything stays in the work dir.
        return List.of(binary.toString(), "server",
                "--address", host + ":" + port(),
                "--console-address", host + ":" + consolePort,
                "--certs-dir", serverDir().resolve("certs").toString(),
                dataDir().toString());
    }

    @Override
    protected Map<String, String> environment() {
        return Map.of("MINIO_ROOT_USER", accessKey(), "MINIO_ROOT_PASSWORD", secretKey(),
                // no update checks or anonymous usage reports from a test server
                "MINIO_UPDATE", "off");
    }
}
