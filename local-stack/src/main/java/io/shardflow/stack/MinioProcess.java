package io.shardflow.stack;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * MinIO in single-drive mode, both its API and console bound to 127.0.0.1. On a secure stack it
 * serves https with a certificate from the stack's CA (its {@code --certs-dir} holds
 * {@code public.crt} and {@code private.key}).
 */
final class MinioProcess extends S3ServerProcess {

    private final Path binary;
    private final int consolePort;
    /** Null: plain HTTP. */
    private final StackSecurity security;

    MinioProcess(Path stackDir, boolean detached, Path binary, int port, int consolePort, String accessKey,
            String secretKey, StackSecurity security) {
        super(stackDir, detached, port, accessKey, secretKey);
        this.binary = binary;
        this.consolePort = consolePort;
        this.security = security;
    }

    @Override
    Path caFile() {
        return security == null ? null : security.caFile();
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
        return probe(endpoint(), caFile());
    }

    /** @param caFile the CA to trust when {@code endpoint} is https; null for plain HTTP */
    static boolean probe(String endpoint, Path caFile) {
        return Probes.httpStatus(URI.create(endpoint + "/minio/health/live"), caFile) == 200;
    }

    @Override
    protected void prepare() throws IOException {
        Files.createDirectories(dataDir());
        Path certs = serverDir().resolve("certs");
        if (security != null) {
            OwnerOnlyFiles.directory(certs);
            OwnerOnlyFiles.write(certs.resolve("public.crt"), Files.readAllBytes(security.s3Certificate()));
            OwnerOnlyFiles.write(certs.resolve("private.key"), Files.readAllBytes(security.s3PrivateKey()));
        } else {
            // a plain start after a secure one in the same work dir serves plain HTTP again
            Files.deleteIfExists(certs.resolve("public.crt"));
            Files.deleteIfExists(certs.resolve("private.key"));
        }
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
