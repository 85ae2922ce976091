package io.shardflow.stack;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.S3Config;
import io.shardflow.gateway.GatewayApp;
import io.shardflow.gateway.config.AuthSettings;
import io.shardflow.gateway.config.GatewayConfig;
import io.shardflow.gateway.config.TlsSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The HTTP edge-gateway as its own JVM, pointed at a stack: attached for tests (killed with the
 * test JVM), or detached for {@code shardflow stack up --gateway}, recorded in
 * {@code <stack dir>/gateway.json} so {@code stack status} and {@code stack down} find it. On a
 * secure stack it produces as the edge principal (write samples, nothing else) and serves TLS with
 * a certificate from the stack's CA ({@code secure/gateway.p12}; devices trust {@code secure/ca.pem}).
 */
public final class LocalGateway {

    public static final String NAME = "edge-gateway";
    static final String STATE_FILE = "gateway.json";
    /** The audience a device's JWT must carry for the gateway (a Keycloak audience mapper puts it in). */
    public static final String JWT_AUDIENCE = "shardflow-gateway";
    private static final ObjectMapper JSON = new ObjectMapper();

    private LocalGateway() {
    }

    /** The gateway as recorded by {@code stack up --gateway}. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Recorded(long pid, int port, String url, String log) {
    }

    /** Settings for a gateway on 127.0.0.1:{@code port}; TLS when the stack is secure. */
    public static Map<String, String> settings(StackEndpoints stack, Path stackDir, int port) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(GatewayConfig.BOOTSTRAP_SERVERS, stack.bootstrapServers());
        settings.put(GatewayConfig.REGISTRY_URL, stack.registryUrl());
        stack.clientConfig(StackPrincipal.EDGE).ifPresent(file -> settings.put(KafkaClientConfig.CLIENT_CONFIG, file.toString()));
        // the registry behind OIDC: the gateway's start-up probe and its serde authenticate as the edge client (read-only)
        settings.putAll(stack.registrySettings(IdentityClient.EDGE));
        settings.put(S3Config.ENDPOINT, stack.s3Endpoint());
        settings.put(S3Config.ACCESS_KEY, stack.s3AccessKey());
        settings.put(S3Config.SECRET_KEY, stack.s3SecretKey());
        settings.put(S3Config.BUCKET, stack.bucket());
        stack.s3CaBundle().ifPresent(ca -> settings.put(S3Config.CA_BUNDLE, ca));
        settings.put(GatewayConfig.LISTEN_HOST, StackPorts.HOST);
        settings.put(GatewayConfig.LISTEN_PORT, Integer.toString(port));
        if (stack.clientConfigDir() != null) {
            settings.put(TlsSettings.KEYSTORE_LOCATION, StackSecurity.gatewayKeyStore(stackDir).toString());
            settings.put(TlsSettings.KEYSTORE_PASSWORD_FILE, StackSecurity.gatewayKeyStorePassword(stackDir).toString());
        }
        return settings;
    }

    /**
     * Settings that make the gateway accept JWTs of a secure stack's identity provider (Keycloak) for
     * audience {@value #JWT_AUDIENCE}: its JWKS fetched over TLS trusting the stack's CA, the device
     * named by {@code deviceClaim} ({@code client_id} when each device is a client of its own);
     * empty for a plain stack.
     */
    public static Map<String, String> identityProviderSettings(StackEndpoints stack, String deviceClaim) {
        if (stack.issuer() == null) {
            return Map.of();
        }
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(AuthSettings.JWKS_URL, stack.issuer() + "/protocol/openid-connect/certs");
        settings.put(AuthSettings.JWKS_CA, stack.caCertificate().toString());
        settings.put(AuthSettings.ISSUER, stack.issuer());
        settings.put(AuthSettings.AUDIENCE, JWT_AUDIENCE);
        settings.put(AuthSettings.DEVICE_CLAIM, deviceClaim);
        return settings;
    }

    /** Starts an attached gateway and waits until it listens; {@code overrides} go over {@link #settings}. */
    public static ServiceProcess start(StackEndpoints stack, Path stackDir, Path workDir, int port, Map<String, String> overrides,
                                       Duration timeout) {
        return start(stack, stackDir, workDir, port, overrides, ServiceProcess.DEFAULT_JVM_OPTIONS, timeout);
    }

    /** As above, with the gateway JVM's own options (heap, GC): the overload tests and the benchmark bound its heap. */
    public static ServiceProcess start(StackEndpoints stack, Path stackDir, Path workDir, int port, Map<String, String> overrides,
                                       List<String> jvmOptions, Duration timeout) {
        Map<String, String> settings = settings(stack, stackDir, port);
        settings.putAll(overrides);
        ServiceProcess process = ServiceProcess.start(NAME, GatewayApp.class.getName(), settings, workDir, jvmOptions, List.of());
        awaitListening(process, port, timeout);
        return process;
    }

    /**
     * Starts a detached gateway for the stack recorded in {@code stackDir}, and records it. On a
     * secure stack it also accepts JWTs of the stack's Keycloak ({@link #identityProviderSettings}).
     */
    public static Recorded startDetached(StackState state, int port, Duration timeout) {
        Path stackDir = Path.of(state.workDir());
        StackEndpoints endpoints = StackEndpoints.of(state);
        Map<String, String> settings = settings(endpoints, stackDir, port);
        // a secure stack's devices may also be Keycloak clients of their own (docs/HTTP-GATEWAY.md, OIDC / JWT)
        settings.putAll(identityProviderSettings(endpoints, "client_id"));
        ServiceProcess process = ServiceProcess.start(NAME, GatewayApp.class.getName(), settings, stackDir.resolve("gateway"),
                ServiceProcess.DEFAULT_JVM_OPTIONS, List.of(), true);
        awaitListening(process, port, timeout);
        Recorded recorded = new Recorded(process.pid(), port, url(endpoints, port), process.log().toString());
        try {
            OwnerOnlyFiles.write(stackDir.resolve(STATE_FILE), JSON.writeValueAsBytes(recorded));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return recorded;
    }

    public static String url(StackEndpoints stack, int port) {
        return (stack.clientConfigDir() != null ? "https" : "http") + "://" + StackPorts.HOST + ":" + port;
    }

    /** The gateway {@code stack up --gateway} recorded in {@code stackDir}, if any. */
    public static Optional<Recorded> recorded(Path stackDir) {
        try {
            return Optional.of(JSON.readValue(Files.readAllBytes(stackDir.toAbsolutePath().normalize().resolve(STATE_FILE)), Recorded.class));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StackException("cannot read " + stackDir.resolve(STATE_FILE) + ": " + e.getMessage(), e);
        }
    }

    /** Whether the recorded gateway process is still ours and running. */
    public static boolean isRunning(Path stackDir, Recorded recorded) {
        return RecordedStack.isOurs(recorded.pid(), stackDir.toAbsolutePath().normalize().toString());
    }

    /** Stops the recorded gateway (SIGTERM, SIGKILL after the grace); one line for the CLI, empty when none was recorded. */
    public static Optional<String> stopRecorded(Path stackDir, Duration grace) {
        Optional<Recorded> recorded = recorded(stackDir);
        if (recorded.isEmpty()) {
            return Optional.empty();
        }
        String line;
        Optional<ProcessHandle> handle = ProcessHandle.of(recorded.get().pid());
        if (handle.isEmpty() || !isRunning(stackDir, recorded.get())) {
            line = "gateway: not running (pid " + recorded.get().pid() + ")";
        } else {
            handle.get().destroy();
            try {
                handle.get().onExit().get(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                line = "gateway: stopped (pid " + recorded.get().pid() + ")";
            } catch (Exception e) {
                handle.get().destroyForcibly();
                line = "gateway: killed after " + grace.toSeconds() + " s (pid " + recorded.get().pid() + ")";
            }
        }
        try {
            Files.deleteIfExists(stackDir.toAbsolutePath().normalize().resolve(STATE_FILE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.of(line);
    }

    /** A port free on 127.0.0.1 now, below the ephemeral range (another listener may still take it before the gateway binds it). */
    public static int freePort() {
        try (ServerSocket socket = ListenPorts.bind(StackPorts.HOST)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new StackException("cannot find a free port", e);
        }
    }

    /** Waits until something accepts connections on {@code port}; fails with the log's end if the process exits. */
    public static void awaitListening(ServiceProcess process, int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            process.requireAlive();
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(StackPorts.HOST, port), 500);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new StackException(NAME + " does not listen on " + port + " after " + timeout.toSeconds() + " s; see "
                            + process.log() + LogTail.of(process.log(), 20));
                }
                ServerProcess.sleep(Duration.ofMillis(200));
            }
        }
    }
}
