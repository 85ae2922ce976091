package io.shardflow.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker, Apicurio Registry and S3 server (S3Proxy or MinIO) running as local
 * processes on 127.0.0.1, with the pipeline's topics and bucket created; a secure stack adds an
 * OIDC identity provider (Keycloak) that the registry takes its tokens from.
 *
 * <p>Tests use {@code try (LocalStack stack = LocalStack.start(StackConfig.defaults(dir)))}: the
 * servers are children of the JVM, stopped on close or, if the test JVM exits first, by a shutdown
 * hook. The CLI's {@code up} starts a {@linkplain StackConfig#detached() detached} stack and
 * leaves it running; {@link #down(Path)} stops it later from any process via {@code stack.json}.
 *
 * <p>Chaos tests stop, kill -9 and restart single servers by {@link Role}; ports and data dirs are
 * kept, so clients reconnect to the same endpoint and find their data.
 */
public final class LocalStack implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalStack.class);
    /** Kafka's controlled shutdown of a single node takes a few seconds; then SIGKILL. */
    public static final Duration STOP_GRACE = Duration.ofSeconds(20);

    private final StackConfig config;
    private final StackPorts ports;
    private final Map<Role, ServerProcess> servers;
    private final KafkaBrokerProcess broker;
    private final ApicurioRegistryProcess registry;
    private final S3ServerProcess s3;
    /** Null for a plain stack, as is {@link #idp}. */
    private final StackSecurity security;
    private final KeycloakProcess idp;
    private final Thread shutdownHook;
    private boolean closed;

    private LocalStack(StackConfig config, ToolPaths tools, StackPorts ports) {
        this.config = config;
        this.ports = ports;
        Path dir = config.workDir();
        this.security = config.secure() ? StackSecurity.prepare(dir) : null;
        this.servers = new EnumMap<>(Role.class);
        if (security != null) {
            // client files name the identity provider's port, which may differ from the last start's
            security.writeClientFiles(StackIdentity.tokenEndpoint(ports.idp()));
            this.idp = new KeycloakProcess(dir, config.detached(), tools, ports.idp(), security);
            servers.put(Role.IDP, idp);
        } else {
            this.idp = null;
        }
        this.broker = new KafkaBrokerProcess(dir, config.detached(), tools, ports, security);
        this.registry = new ApicurioRegistryProcess(dir, config.detached(), tools, ports.registry(), security,
                idp == null ? null : idp.issuer());
        this.s3 = S3ServerProcess.create(config, tools, ports, security);
        servers.put(Role.BROKER, broker);
        servers.put(Role.REGISTRY, registry);
        servers.put(Role.S3, s3);
        this.shutdownHook = config.detached() ? null : new Thread(this::stopAllQuietly, "shardflow-stack-shutdown");
    }

    /**
     * Starts all servers, waits until each answers, creates the topics and the bucket, and writes
     * {@code stack.json}. On any failure the servers already started are stopped again.
     *
     * @throws StackException with the log file and its last lines when a server fails to start
     */
    public static LocalStack start(StackConfig config) {
        long startNanos = System.nanoTime();
        ToolPaths tools = ToolPaths.load(config.toolsDir());
        Optional<StackState> previous = StackState.read(config.workDir());
        if (previous.isPresent() && RecordedStack.anyAlive(previous.get())) {
            throw new StackException("a stack is already running in " + config.workDir()
                    + "; stop it first (LocalStack.down / `stack down --dir " + config.workDir() + "`)");
        }
        StackPorts ports = previous.map(StackState::ports).filter(StackPorts::allFree).orElseGet(StackPorts::allocate);
        try {
            Files.createDirectories(config.workDir());
        } catch (IOException e) {
            throw new StackException("cannot create work dir " + config.workDir(), e);
        }
        LocalStack stack = new LocalStack(config, tools, ports);
        try {
            stack.startAll();
            log.info("Local stack up in {} ms: kafka {} registry {} s3 {} ({})",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), stack.bootstrapServers(),
                    stack.registryUrl(), stack.s3Endpoint(), config.s3Kind());
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll() {
        if (shutdownHook != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        // Spawn everything before waiting on anything: the JVMs warm up side by side. Keycloak, the
        // slowest, goes first; the registry reaches it only at its first authenticated request. The
        // broker goes last because formatting its storage runs a short JVM first.
        if (idp != null) {
            idp.start();
        }
        registry.start();
        s3.start();
        broker.start();
        writeState(); // pids on disk as early as possible, so `down` can clean up a failed start
        OwnerOnlyFiles.write(s3SecretKeyFile(), s3SecretKey());
        broker.awaitReady(config.startTimeout());
        if (security != null) {
            StackResources.withAdmin(broker.adminBootstrapServers(), broker.adminClientSettings(),
                    admin -> StackAccess.apply(admin, security.scramPasswords(), config.startTimeout()));
        }
        StackResources.createTopics(broker.adminBootstrapServers(), broker.adminClientSettings(), config.topics(),
                config.startTimeout());
        s3.awaitReady(config.startTimeout());
        StackResources.createBucket(s3Endpoint(), s3AccessKey(), s3SecretKey(), s3.caFile(), bucket(), config.startTimeout());
        registry.awaitReady(config.startTimeout());
        if (idp != null) {
            // Keycloak's first start (schema, master realm, our realm) alone took 80-100 s on a busy 2-core machine
            idp.awaitReady(config.startTimeout().multipliedBy(2));
            // as a CI job would before producers roll out: no other principal may register (docs/ARCHITECTURE.md § 6)
            StackResources.registerSchemas(registryUrl(), StackAccess.SAMPLES,
                    KafkaClientFiles.load(IdentityClient.ADMIN.registryConfig(security.clientDir())), config.startTimeout());
        }
    }

    /** Reads the state a stack recorded in {@code workDir}, from this or any other process. */
    public static Optional<StackState> read(Path workDir) {
        return StackState.read(workDir);
    }

    /** Probes each recorded server; empty when no stack was ever started in {@code workDir}. */
    public static Map<Role, RecordedStack.ServerStatus> status(Path workDir) {
        return read(workDir).map(RecordedStack::status).orElse(Map.of());
    }

    /** Stops the stack recorded in {@code workDir}, started by this or another process. */
    public static List<String> down(Path workDir) {
        // The gateway first: it produces to the broker, which should still be there while it drains.
        List<String> report = new java.util.ArrayList<>();
        LocalGateway.stopRecorded(workDir, STOP_GRACE).ifPresent(report::add);
        report.addAll(read(workDir).map(state -> RecordedStack.down(state, STOP_GRACE)).orElse(List.of()));
        return report;
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** The SSL listener requiring client certificates (mTLS) of a secure stack; empty for a plain one. */
    public Optional<String> mtlsBootstrapServers() {
        return Optional.ofNullable(broker.mtlsBootstrapServers());
    }

    /**
     * A secure stack's client properties files ({@link StackPrincipal#scramClientConfig},
     * {@link StackPrincipal#mtlsClientConfig}); empty for a plain stack.
     */
    public Optional<Path> clientConfigDir() {
        return Optional.ofNullable(security).map(StackSecurity::clientDir);
    }

    /** The local CA's certificate (PEM) of a secure stack; empty for a plain stack. */
    public Optional<Path> caCertificate() {
        return Optional.ofNullable(security).map(StackSecurity::caFile);
    }

    /** The Apicurio v3 core API base, {@code http://127.0.0.1:PORT/apis/registry/v3} ({@code https} when secure). */
    public String registryUrl() {
        return registry.registryUrl();
    }

    /** A secure stack's identity provider, with its administrator's credentials; empty for a plain stack. */
    public Optional<IdentityProvider> identityProvider() {
        return Optional.ofNullable(idp).map(p -> new IdentityProvider(p.issuer(), security.caFile(), StackIdentity.IDP_ADMIN_USER,
                security.identity().idpAdminPassword()));
    }

    /**
     * Every secret this stack made (passwords of key stores, SCRAM users, OIDC clients, the identity
     * provider's admin) and the S3 secret key: for tests that check none of them leaks.
     */
    public List<String> secretValues() {
        List<String> values = new ArrayList<>(List.of(s3SecretKey()));
        if (security != null) {
            values.addAll(security.secretValues());
        }
        return values;
    }

    public String s3Endpoint() {
        return s3.endpoint();
    }

    public String s3AccessKey() {
        return config.s3AccessKey();
    }

    public String s3SecretKey() {
        return config.s3SecretKey();
    }

    /**
     * An owner-only file holding the S3 secret key, for clients that take it from a file
     * ({@code SHARDFLOW_S3_SECRET_KEY_FILE}) so it never appears in a command line or in output.
     */
    public Path s3SecretKeyFile() {
        return secretKeyFile(config.workDir());
    }

    static Path secretKeyFile(Path workDir) {
        return workDir.resolve("s3-secret-key");
    }

    public String bucket() {
        return config.bucket();
    }

    public S3Kind s3Kind() {
        return config.s3Kind();
    }

    public Path workDir() {
        return config.workDir();
    }

    public StackPorts ports() {
        return ports;
    }

    /** The server's log file, e.g. for a test to attach on failure. */
    public Path logFile(Role role) {
        return server(role).logFile();
    }

    /** The pid of the running server; throws if it is stopped or killed. */
    public long pid(Role role) {
        return server(role).pid();
    }

    public boolean isRunning(Role role) {
        return server(role).isAlive();
    }

    /** Graceful stop (SIGTERM, SIGKILL after {@link #STOP_GRACE}). */
    public void stop(Role role) {
        server(role).stop(STOP_GRACE);
    }

    /** kill -9, as a crash. The data dir stays; {@link #start(Role)} brings the server back. */
    public void kill(Role role) {
        server(role).kill();
    }

    /** Starts a stopped or killed server on its old port and data dir, and waits until it answers. */
    public void start(Role role) {
        ServerProcess server = server(role);
        server.start();
        writeState();
        server.awaitReady(config.startTimeout());
    }

    /** Graceful stop, then start. */
    public void restart(Role role) {
        stop(role);
        start(role);
    }

    /** The state as written to {@code stack.json}. */
    public synchronized StackState state() {
        Map<Role, StackState.ServerState> recorded = new EnumMap<>(Role.class);
        servers.forEach((role, server) -> {
            if (server.isAlive()) {
                recorded.put(role, new StackState.ServerState(server.pid(), server.ports(),
                        server.logFile().toString()));
            }
        });
        return new StackState(StackState.FORMAT_VERSION, config.workDir().toString(), config.s3Kind(),
                config.detached(), bucket(), bootstrapServers(), registryUrl(), s3Endpoint(), s3AccessKey(),
                s3SecretKey(), ports, recorded, broker.mtlsBootstrapServers(),
                clientConfigDir().map(Path::toString).orElse(null), caCertificate().map(Path::toString).orElse(null),
                idp == null ? null : idp.issuer());
    }

    private void writeState() {
        state().write();
    }

    private ServerProcess server(Role role) {
        ServerProcess server = servers.get(role);
        if (server == null) {
            throw new IllegalArgumentException("unknown role " + role);
        }
        return server;
    }

    /** Stops every server, all at once. The work dir and its data stay. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopAllQuietly();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook is running or has run
            }
        }
    }

    private void stopAllQuietly() {
        servers.values().forEach(ServerProcess::requestStop);
        for (ServerProcess server : servers.values()) {
            try {
                server.awaitStop(STOP_GRACE);
            } catch (RuntimeException e) {
                log.warn("Could not stop {}: {}", server.displayName(), e.toString());
            }
        }
    }
}
