package io.shardflow.stack;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Keycloak, the secure stack's OIDC server: the Quarkus distribution from Maven Central, built once
 * by scripts/fetch-tools.sh for the dev-file (H2) database and started here as a plain JVM (not
 * {@code kc.sh}, whose shell would stand between a kill -9 and the server). It serves https only, on
 * 127.0.0.1, with a certificate of the stack's CA, a local cache (no cluster discovery, no port
 * beyond loopback) and its database in the work dir. The realm ({@link StackIdentity#realmJson()}) is
 * imported at the first start; a later start finds it and keeps its signing keys, so tokens issued
 * before a restart stay valid. Every setting, the admin password among them, is in an owner-only
 * config file: the command line holds none.
 */
final class KeycloakProcess extends ServerProcess {

    private static final String REALM_FILE = "shardflow-realm.json";
    private static final String IMPORTED_MARKER = "imported-realm.sha256";

    private final ToolPaths tools;
    private final int port;
    private final StackSecurity security;

    KeycloakProcess(Path stackDir, boolean detached, ToolPaths tools, int port, StackSecurity security) {
        super(Role.IDP, stackDir, detached);
        this.tools = tools;
        this.port = port;
        this.security = security;
    }

    String issuer() {
        return StackIdentity.issuer(port);
    }

    /** The readiness probe: the realm's discovery document answers once the realm is imported. */
    static boolean probe(String issuer, Path caFile) {
        return Probes.httpStatus(URI.create(issuer + "/.well-known/openid-configuration"), caFile) == 200;
    }

    @Override
    String displayName() {
        return "Keycloak";
    }

    @Override
    Map<String, Integer> ports() {
        return Map.of("https", port);
    }

    @Override
    boolean isReady() {
        return probe(issuer(), security.caFile());
    }

    @Override
    protected void prepare() throws IOException {
        // its database holds the client secrets: nothing of this server's dir is for other users
        OwnerOnlyFiles.directory(serverDir());
        Path importDir = OwnerOnlyFiles.directory(serverDir().resolve("import"));
        String realm = security.identity().realmJson();
        OwnerOnlyFiles.write(importDir.resolve(REALM_FILE), realm);
        // New key material (new client secrets) needs a new realm: an import skips an existing one.
        String digest = sha256(realm);
        Path marker = serverDir().resolve(IMPORTED_MARKER);
        if (!Files.exists(marker) || !Files.readString(marker).equals(digest)) {
            deleteTree(dataDir());
            Files.writeString(marker, digest);
        }
        OwnerOnlyFiles.write(configFile(), String.join("\n", configLines()) + "\n");
    }

    private List<String> configLines() {
        StackIdentity identity = security.identity();
        return List.of(
                "# Written by io.shardflow.stack at every start; holds the admin password, keep it owner-only.",
                "db=dev-file",
                "db-url-path=" + serverDir(),
                "cache=local",
                "http-enabled=false",
                "http-host=" + StackPorts.HOST,
                "https-port=" + port,
                "https-certificate-file=" + identity.certificate(StackIdentity.IDP_CERTIFICATE),
                "https-certificate-key-file=" + identity.certificate(StackIdentity.IDP_KEY),
                "hostname=https://" + StackPorts.HOST + ":" + port,
                "bootstrap-admin-username=" + StackIdentity.IDP_ADMIN_USER,
                "bootstrap-admin-password=" + identity.idpAdminPassword());
    }

    @Override
    protected List<String> command() {
        Path home = tools.requireKeycloak();
        // C1 only: the IdP answers a few token requests a minute, and on two busy cores the C2 compiler's
        // threads doubled its start (53 s against 28 s for a restart at a load average of 15).
        return List.of(javaBinary(), "-Xms64m", "-Xmx512m", "-XX:MetaspaceSize=96M", "-XX:MaxMetaspaceSize=256m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError", "-Dfile.encoding=UTF-8",
                "-Djava.awt.headless=true",
                stackDirMarker(), tmpDirOption(),
                // what kc.sh passes: the dist's home, JBoss logging, the opens Quarkus and JBoss Threads need
                "-Dkc.home.dir=" + home, "-Djboss.server.config.dir=" + home.resolve("conf"),
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager", "-Dpicocli.disable.closures=true",
                "-Dquarkus-log-max-startup-records=10000",
                "-Djava.util.concurrent.ForkJoinPool.common.threadFactory=io.quarkus.bootstrap.forkjoin.QuarkusForkJoinWorkerThreadFactory",
                "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens=java.base/java.security=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
                // state of this stack in its work dir, not in the shared tools dir
                "-Dquarkus.transaction-manager.object-store.directory=" + serverDir().resolve("transaction-logs"),
                "-Dkeycloak.migration.dir=" + serverDir().resolve("import"),
                "-cp", home.resolve(ToolPaths.KEYCLOAK_LAUNCHER).toString(), "io.quarkus.bootstrap.runner.QuarkusEntryPoint",
                "--config-file=" + configFile(), "start", "--optimized", "--import-realm");
    }

    private Path configFile() {
        return serverDir().resolve("keycloak.conf");
    }

    /** Where dev-file keeps its H2 database ({@code db-url-path}/data). */
    private Path dataDir() {
        return serverDir().resolve("data");
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
