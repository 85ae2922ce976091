package io.shardflow.stack;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * S3Proxy on its filesystem backend: buckets are directories under the data dir, so objects
 * survive a kill -9. It honours {@code If-None-Match: *} on PUT and CompleteMultipartUpload, which
 * our create-only writes rely on.
 */
final class S3ProxyProcess extends S3ServerProcess {

    private final Path jar;

    S3ProxyProcess(Path stackDir, boolean detached, Path jar, int port, String accessKey, String secretKey) {
        super(stackDir, detached, port, accessKey, secretKey);
        this.jar = jar;
    }

    private Path propertiesFile() {
        return serverDir().resolve("s3proxy.conf");
    }

    @Override
    S3Kind kind() {
        return S3Kind.S3PROXY;
    }

    @Override
    String displayName() {
        return "S3Proxy";
    }

    /** Any HTTP answer will do: an anonymous GET / is refused with 403 once the server is up. */
    @Override
    boolean isReady() {
        return probe(endpoint());
    }

    static boolean probe(String endpoint) {
        return Probes.httpStatus(URI.create(endpoint + "/")) > 0;
    }

    @Override
    protected void prepare() throws IOException {
        Files.createDirectories(dataDir());
        // owner-only: it holds the S3 secret key
        OwnerOnlyFiles.write(propertiesFile(), String.join(System.lineSeparator(),
                "# Written by io.shardflow.stack.S3ProxyProcess at every start; edits are lost.",
                "s3proxy.endpoint=" + endpoint(),
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + accessKey(),
                "s3proxy.credential=" + secretKey(),
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + dataDir(),
                ""));
    }

    @Override
    protected List<String> command() {
        return List.of(javaBinary(), "-Xmx512m", "-XX:+UseSerialGC", "-Djava.awt.headless=true",
                stackDirMarker(), tmpDirOption(),
                // logback's own 40-line configuration report on every start buries the server's log
                "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
                "-jar", jar.toString(), "--properties", propertiesFile().toString());
    }
}
