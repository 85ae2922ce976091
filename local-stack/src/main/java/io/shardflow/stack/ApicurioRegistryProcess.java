package io.shardflow.stack;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Apicurio Registry 3.0.9, the Quarkus runner jar from Maven Central. Its default storage is an
 * in-memory H2 database, which a restart would empty while Kafka still holds records that carry
 * the old schema ids; a file-backed H2 in the work dir keeps schemas across restarts and kill -9.
 */
final class ApicurioRegistryProcess extends ServerProcess {

    static final String API_PATH = "/apis/registry/v3";

    private final ToolPaths tools;
    private final int port;

    ApicurioRegistryProcess(Path stackDir, boolean detached, ToolPaths tools, int port) {
        super(Role.REGISTRY, stackDir, detached);
        this.tools = tools;
        this.port = port;
    }

    /** The v3 core API base, e.g. {@code http://127.0.0.1:PORT/apis/registry/v3}. */
    String registryUrl() {
        return "http://" + StackPorts.HOST + ":" + port + API_PATH;
    }

    static boolean probe(String registryUrl) {
        return Probes.httpStatus(URI.create(registryUrl + "/system/info")) == 200;
    }

    @Override
    String displayName() {
        return "Apicurio Registry";
    }

    @Override
    Map<String, Integer> ports() {
        return Map.of("http", port);
    }

    @Override
    boolean isReady() {
        return probe(registryUrl());
    }

    @Override
    protected List<String> command() {
        Path db = serverDir().resolve("h2").resolve("registry");
        // C1 only: the registry answers a few schema lookups (clients cache them), so the optimising
        // compiler would only cost start-up CPU (measured: 7.5 CPU-s to ready with it, 4.0 without).
        return List.of(javaBinary(), "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
                stackDirMarker(), tmpDirOption(),
                "-Dquarkus.http.host=" + StackPorts.HOST,
                "-Dquarkus.http.port=" + port,
                // not a default, but a test of ours must never bind a second, all-interfaces port
                "-Dquarkus.management.enabled=false",
                "-Dapicurio.datasource.url=jdbc:h2:file:" + db,
                "-Dapicurio.storage.snapshot.location=" + serverDir().resolve("snapshots"),
                "-jar", tools.apicurioRunnerJar().toString());
    }
}
