package io.shardflow.stack;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** What S3Proxy and MinIO share: an S3 endpoint on a fixed port, one key pair, a data dir. */
abstract class S3ServerProcess extends ServerProcess {

    private final int port;
    private final String accessKey;
    private final String secretKey;

    protected S3ServerProcess(Path stackDir, boolean detached, int port, String accessKey, String secretKey) {
        super(Role.S3, stackDir, detached);
        this.port = port;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    final String endpoint() {
        return (caFile() != null ? "https://" : "http://") + StackPorts.HOST + ":" + port;
    }

    /** The CA whose certificate the server presents when it serves TLS; null when it serves plain HTTP. */
    Path caFile() {
        return null;
    }

    final int port() {
        return port;
    }

    final String accessKey() {
        return accessKey;
    }

    final String secretKey() {
        return secretKey;
    }

    abstract S3Kind kind();

    /**
     * Objects live here; it survives stops, kills and restarts. One dir per kind: the two servers'
     * on-disk layouts differ, and a work dir may be brought up with either.
     */
    final Path dataDir() {
        return serverDir().resolve("data-" + kind().name().toLowerCase(Locale.ROOT));
    }

    @Override
    Map<String, Integer> ports() {
        return Map.of("s3", port);
    }

    /** @param security a secure stack's material: MinIO then serves TLS with a certificate of its CA; null for plain HTTP */
    static S3ServerProcess create(StackConfig config, ToolPaths tools, StackPorts ports, StackSecurity security) {
        switch (config.s3Kind()) {
            case S3PROXY:
                return new S3ProxyProcess(config.workDir(), config.detached(), tools.s3proxyJar(), ports.s3(),
                        config.s3AccessKey(), config.s3SecretKey());
            case MINIO:
                return new MinioProcess(config.workDir(), config.detached(), tools.requireMinio(), ports.s3(),
                        ports.s3Console(), config.s3AccessKey(), config.s3SecretKey(), security);
            default:
                throw new IllegalArgumentException("unknown S3 kind " + config.s3Kind());
        }
    }
}
