package io.shardflow.stack;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft Kafka (combined broker and controller), run from the classpath that
 * scripts/fetch-tools.sh resolved. Storage is formatted once per work dir; restarts and kill -9
 * recover from the same log dir.
 */
final class KafkaBrokerProcess extends ServerProcess {

    private static final Logger log = LoggerFactory.getLogger(KafkaBrokerProcess.class);
    private static final long FORMAT_TIMEOUT_SECONDS = 120;

    private final ToolPaths tools;
    private final int port;
    private final int controllerPort;
    private final int mtlsPort;
    /** Null for a plain stack. */
    private final StackSecurity security;

    KafkaBrokerProcess(Path stackDir, boolean detached, ToolPaths tools, StackPorts ports, StackSecurity security) {
        super(Role.BROKER, stackDir, detached);
        this.tools = tools;
        this.port = ports.broker();
        this.controllerPort = ports.controller();
        this.mtlsPort = ports.brokerTls();
        this.security = security;
    }

    /** PLAINTEXT, or SASL_SSL (SCRAM-SHA-512) on a secure stack. */
    String bootstrapServers() {
        return StackPorts.HOST + ":" + port;
    }

    /** The SSL listener that requires client certificates; null on a plain stack. */
    String mtlsBootstrapServers() {
        return security == null ? null : StackPorts.HOST + ":" + mtlsPort;
    }

    /** What the stack's own admin client needs to connect: nothing on a plain stack, the admin's certificate on a secure one. */
    Map<String, Object> adminClientSettings() {
        return security == null ? Map.of() : security.adminClientSettings();
    }

    /** Where the stack's own admin client connects. */
    String adminBootstrapServers() {
        return security == null ? bootstrapServers() : mtlsBootstrapServers();
    }

    private Path dataDir() {
        return serverDir().resolve("data");
    }

    private Path propertiesFile() {
        return serverDir().resolve("server.properties");
    }

    @Override
    String displayName() {
        return "Kafka broker";
    }

    @Override
    Map<String, Integer> ports() {
        return security == null ? Map.of("kafka", port, "controller", controllerPort)
                : Map.of("kafka", port, "kafka-mtls", mtlsPort, "controller", controllerPort);
    }

    @Override
    boolean isReady() {
        return Probes.kafkaReady(StackPorts.HOST, security == null ? port : mtlsPort, adminClientSettings());
    }

    /** Probes a recorded broker as the stack's admin would connect to it. */
    static boolean probe(StackState state) {
        if (state.clientConfigDir() == null) {
            return Probes.kafkaReady(StackPorts.HOST, state.ports().broker(), Map.of());
        }
        Path adminConfig = StackPrincipal.ADMIN.mtlsClientConfig(Path.of(state.clientConfigDir()));
        return Probes.kafkaReady(StackPorts.HOST, state.ports().brokerTls(), KafkaClientFiles.load(adminConfig));
    }

    @Override
    protected void prepare() throws IOException {
        Files.createDirectories(dataDir());
        // owner-only: on a secure stack it holds the key store password
        OwnerOnlyFiles.write(propertiesFile(), serverProperties());
        if (!Files.exists(dataDir().resolve("meta.properties"))) {
            format();
        }
    }

    /** One broker, loopback only; internal topics sized for one replica and a quick first use. */
    private String serverProperties() {
        String host = StackPorts.HOST;
        return String.join(System.lineSeparator(),
                "# Written by io.shardflow.stack.KafkaBrokerProcess at every start; edits are lost.",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@" + host + ":" + controllerPort,
                listeners(),
                "log.dirs=" + dataDir(),
                "num.partitions=1",
                "default.replication.factor=1",
                "min.insync.replicas=1",
                // The internal topics default to 3 replicas and would never be created on one node.
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                // 50 partitions each by default: fewer make the first consumer group and the first
                // transactional producer (Kafka Streams EOS v2) ready faster on a 2-core machine.
                "offsets.topic.num.partitions=5",
                "transaction.state.log.num.partitions=5",
                // Tests start consumers right away; the default 3 s delay only slows them down.
                "group.initial.rebalance.delay.ms=0",
                // After a kill -9 the controller refuses the new incarnation's registration until
                // the old session expires (9 s by default): chaos tests restart the broker often.
                "broker.heartbeat.interval.ms=1000",
                "broker.session.timeout.ms=4000",
                "");
    }

    private String listeners() {
        if (security != null) {
            return String.join(System.lineSeparator(), security.brokerProperties(port, mtlsPort, controllerPort));
        }
        String host = StackPorts.HOST;
        return String.join(System.lineSeparator(),
                "listeners=PLAINTEXT://" + host + ":" + port + ",CONTROLLER://" + host + ":" + controllerPort,
                "advertised.listeners=PLAINTEXT://" + host + ":" + port,
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "controller.listener.names=CONTROLLER");
    }

    /**
     * kafka.tools.StorageTool with a fresh cluster id. The id comes from kafka-clients' Uuid (what
     * {@code StorageTool random-uuid} prints) rather than from parsing a tool's stdout, where a
     * stray log line would silently become the cluster id.
     */
    private void format() throws IOException {
        String clusterId = Uuid.randomUuid().toString();
        log.info("Formatting Kafka storage {} with cluster id {}", dataDir(), clusterId);
        ProcessBuilder builder = new ProcessBuilder(javaBinary(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + tools.kafkaLog4jConfig(), stackDirMarker(), tmpDirOption(),
                "kafka.tools.StorageTool", "format", "--ignore-formatted",
                "-t", clusterId, "-c", propertiesFile().toString())
                .directory(serverDir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("CLASSPATH", tools.kafkaClasspath());
        Process formatter = builder.start();
        try {
            if (!formatter.waitFor(FORMAT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                formatter.destroyForcibly();
                throw new StackException("Kafka StorageTool format did not finish in " + FORMAT_TIMEOUT_SECONDS
                        + " s; see " + logFile() + tail());
            }
        } catch (InterruptedException e) {
            formatter.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new StackException("interrupted while formatting Kafka storage", e);
        }
        if (formatter.exitValue() != 0 || !Files.exists(dataDir().resolve("meta.properties"))) {
            throw new StackException("Kafka StorageTool format failed (exit " + formatter.exitValue() + "); see "
                    + logFile() + tail());
        }
    }

    @Override
    protected List<String> command() {
        return List.of(javaBinary(), "-Xmx1g", "-XX:+UseG1GC", "-Djava.awt.headless=true",
                "-Dlog4j2.configurationFile=" + tools.kafkaLog4jConfig(), stackDirMarker(), tmpDirOption(),
                "kafka.Kafka", propertiesFile().toString());
    }

    /** The classpath goes through the environment: ~100 jars would bury the command line in ps. */
    @Override
    protected Map<String, String> environment() {
        return Map.of("CLASSPATH", tools.kafkaClasspath());
    }
}
