package io.shardflow.stack;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Apicurio Registry 3.0.9, the Quarkus runner jar from Maven Central. Its default storage is an
 * in-memory H2 database, which a restart would empty while Kafka still holds records that carry
 * the old schema ids; a file-backed H2 in the work dir keeps schemas across restarts and kill -9.
 *
 * <p>In a secure stack it serves https only (a certificate of the stack's CA; no plain listener),
 * accepts only bearer tokens from the stack's identity provider that carry the registry's audience,
 * and authorizes by the token's realm role (docs/ARCHITECTURE.md § 6). Those settings go into
 * {@code config/application.properties} in its working directory, owner-only, where Quarkus reads
 * them: its OIDC trust store password stays off the command line.
 */
final class ApicurioRegistryProcess extends ServerProcess {

    static final String API_PATH = "/apis/registry/v3";

    private final ToolPaths tools;
    private final int port;
    /** Null for a plain stack. */
    private final StackSecurity security;
    private final String issuer;

    ApicurioRegistryProcess(Path stackDir, boolean detached, ToolPaths tools, int port, StackSecurity security, String issuer) {
        super(Role.REGISTRY, stackDir, detached);
        this.tools = tools;
        this.port = port;
        this.security = security;
        this.issuer = issuer;
    }

    /** The v3 core API base, e.g. {@code http://127.0.0.1:PORT/apis/registry/v3} ({@code https} when secure). */
    String registryUrl() {
        return (security == null ? "http" : "https") + "://" + StackPorts.HOST + ":" + port + API_PATH;
    }

    /** {@code /system/info} answers without credentials even when the API requires them. */
    static boolean probe(String registryUrl, Path caFile) {
        return Probes.httpStatus(URI.create(registryUrl + "/system/info"), registryUrl.startsWith("https:") ? caFile : null) == 200;
    }

    @Override
    String displayName() {
        return "Apicurio Registry";
    }

    @Override
    Map<String, Integer> ports() {
        return Map.of(security == null ? "http" : "https", port);
    }

    @Override
    boolean isReady() {
        return probe(registryUrl(), security == null ? null : security.caFile());
    }

    @Override
    protected void prepare() throws IOException {
        if (security != null) {
            Path config = OwnerOnlyFiles.directory(serverDir().resolve("config"));
            OwnerOnlyFiles.write(config.resolve("application.properties"), String.join("\n", secureSettings()) + "\n");
        }
    }

    /** https with the stack's certificate; OIDC bearer tokens of the stack's realm; roles from the token. */
    private List<String> secureSettings() {
        StackIdentity identity = security.identity();
        return List.of(
                "# Written by io.shardflow.stack at every start; holds a trust store password, keep it owner-only.",
                "quarkus.http.ssl-port=" + port,
                "quarkus.http.insecure-requests=disabled",
                "quarkus.http.ssl.certificate.files=" + identity.certificate(StackIdentity.REGISTRY_CERTIFICATE),
                "quarkus.http.ssl.certificate.key-files=" + identity.certificate(StackIdentity.REGISTRY_KEY),
                "quarkus.oidc.tenant-enabled=true",
                "quarkus.oidc.auth-server-url=" + issuer,
                // the image's defaults point at apicur.io: every OIDC call must stay on this machine
                "quarkus.oidc.token-path=" + issuer + "/protocol/openid-connect/token",
                "quarkus.oidc.client-id=" + StackIdentity.REGISTRY_AUDIENCE,
                "quarkus.oidc.token.audience=" + StackIdentity.REGISTRY_AUDIENCE,
                "quarkus.oidc.tls.verification=required",
                "quarkus.oidc.tls.trust-store-file=" + identity.truststore(),
                "quarkus.oidc.tls.trust-store-password=" + identity.truststorePassword(),
                "apicurio.auth.role-based-authorization=true",
                "apicurio.auth.role-source=token",
                "apicurio.auth.anonymous-read-access.enabled=false",
                "apicurio.auth.authenticated-read-access.enabled=false",
                "apicurio.authn.basic-client-credentials.enabled=false",
                // Refused bearer tokens must not reach the log. The image logs this class at DEBUG, which
                // writes each one whole; and the interceptor logs a refused write at ERROR with the JWT
                // library's message, which holds a tampered token whole, with its genuine signature. The
                // access log still records every 401 and 403; the interceptor's INFO lines (principal,
                // roles) go with it.
                "quarkus.log.category.\"io.quarkus.oidc.runtime.OidcProvider\".level=INFO",
                "quarkus.log.category.\"io.apicurio.registry.auth.AuthorizedInterceptor\".level=OFF");
    }

    @Override
    protected List<String> command() {
        Path db = serverDir().resolve("h2").resolve("registry");
        // C1 only: the registry answers a few schema lookups (clients cache them), so the optimising
        // compiler would only cost start-up CPU (measured: 7.5 CPU-s to ready with it, 4.0 without).
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.awt.headless=true",
                stackDirMarker(), tmpDirOption(),
                "-Dquarkus.http.host=" + StackPorts.HOST,
                // not a default, but a test of ours must never bind a second, all-interfaces port
                "-Dquarkus.management.enabled=false",
                "-Dapicurio.datasource.url=jdbc:h2:file:" + db,
                "-Dapicurio.storage.snapshot.location=" + serverDir().resolve("snapshots")));
        if (security == null) {
            command.add("-Dquarkus.http.port=" + port);
        }
        command.addAll(List.of("-jar", tools.apicurioRunnerJar().toString()));
        return command;
    }
}
