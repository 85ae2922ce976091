package io.shardflow.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.SecretLeaks;
import io.shardflow.it.support.SecureStackExtension;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.IdentityClient;
import io.shardflow.stack.LocalPipeline;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.ServiceProcess;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.StackPrincipal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stack up --secure} on real parts, end to end: the broker takes only SASL_SSL (SCRAM-SHA-512)
 * and mTLS clients, MinIO serves TLS, and the schema registry (https, OIDC, roles) takes only tokens
 * of the stack's Keycloak. Each service reaches Kafka and the registry as its own least-privileged
 * principal (registry: OAuth2 client credentials, read-only), devices with edge-client and the
 * Python edge SDK look up the schema the stack's admin registered, and the samples reach the shards
 * exactly once. A wrong client secret stops a service at start naming the key, and no secret
 * reaches a log, a command line or a file others can read. The stack is shared with the other
 * secure test classes (SecureStackExtension): its identity provider is the slow part.
 */
@ExtendWith(SecureStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureStackTest {

    private static final String DATASET = "cams";
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(240);
    private static final int PYTHON_SAMPLES = 30;

    @TempDir
    static Path work;

    private LocalStack stack;
    private StackEndpoints endpoints;
    private Path clients;
    private S3ObjectStore store;

    @BeforeAll
    void useTheSecureStack(LocalStack secureStack) {
        stack = secureStack;
        endpoints = StackEndpoints.of(stack);
        clients = stack.clientConfigDir().orElseThrow();
        // MinIO, the production target, serving https with a certificate of the stack's CA: every S3
        // call below, the services' included, goes over TLS trusting that CA (s3.ca.bundle) only.
        assertThat(endpoints.s3Endpoint()).startsWith("https://");
        assertThat(endpoints.registryUrl()).startsWith("https://");
        store = S3ObjectStore.connect(endpoints.s3Settings());
        for (String version : List.of("scram", "mtls")) {
            new DatasetCatalog(store).create(new DatasetSpec(DATASET, version,
                    List.of(TensorSpec.parse("image:float32:3x4x4"), TensorSpec.parse("label:int64")),
                    "label", "it", "secure stack test", 0, false, Instant.now()));
        }
    }

    @AfterAll
    void closeStore() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void shouldCommitExactlyTheSamplesOfBothEdgeSdksWithEveryServiceOnItsOwnPrincipals() throws Exception {
        SyntheticSamples synthetic = new SyntheticSamples(DATASET, "scram", "cam-s", 3, 4, 10, 7);
        // the quickstart's way: each service its own JVM, settings (OAuth2 client secret included) in an owner-only file
        try (LocalPipeline pipeline = LocalPipeline.start(endpoints, work.resolve("scram"), 40, Duration.ofSeconds(2), "scram")) {
            Set<String> published = publish(endpoints.bootstrapServers(), StackPrincipal.EDGE.scramClientConfig(clients), synthetic, 120);
            published.addAll(publishWithPython("scram", "py-dev", PYTHON_SAMPLES));
            CommitLog log = new CommitLog(store, DATASET, "scram", Clock.systemUTC());
            pipeline.awaitCommitted(log, published.size(), COMMIT_TIMEOUT, Duration.ofMillis(500), snapshot -> { });

            assertThat(committedIds(log.latest())).containsExactlyInAnyOrderElementsOf(published);
            SecretLeaks.of(stack).assertNoneIn(stack, pipeline.logs(), pipeline.pids());
            String ingestLog = Files.readString(pipeline.logs().get(0));
            assertThat(ingestLog).as("ingest-app could read samples' retention with its ACLs")
                    .contains("topic 'samples' keeps records").doesNotContain("cannot check the retention");
        }
    }

    @Test
    void shouldCommitExactlyThePublishedSamplesWithEveryServiceOnItsOwnClientCertificate() throws Exception {
        String mtls = stack.mtlsBootstrapServers().orElseThrow();
        Map<String, Object> ingestSettings = new HashMap<>(PipelineSettings.ingest(endpoints, 40, 1 << 20, Duration.ofSeconds(2),
                work.resolve("mtls-ingest")));
        ingestSettings.put("bootstrap.servers", mtls);
        ingestSettings.put(KafkaClientConfig.CLIENT_CONFIG, StackPrincipal.INGEST.mtlsClientConfig(clients).toString());
        Map<String, Object> sinkSettings = new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("mtls-sink"), "mtls-sink"));
        sinkSettings.put("bootstrap.servers", mtls);
        sinkSettings.put(KafkaClientConfig.CLIENT_CONFIG, StackPrincipal.SINK.mtlsClientConfig(clients).toString());
        assertThat(ingestSettings).containsEntry(RegistryConfig.AUTH_CLIENT_ID, IdentityClient.INGEST.clientId());
        assertThat(sinkSettings).containsEntry(RegistryConfig.AUTH_CLIENT_ID, IdentityClient.SINK.clientId());

        IngestApp ingest = IngestApp.start(ingestSettings);
        ShardSinkApp sink = ShardSinkApp.start(sinkSettings);
        try {
            SyntheticSamples synthetic = new SyntheticSamples(DATASET, "mtls", "cam-m", 3, 4, 10, 8);
            Set<String> published = publish(mtls, StackPrincipal.EDGE.mtlsClientConfig(clients), synthetic, 90);
            CommitLog log = new CommitLog(store, DATASET, "mtls", Clock.systemUTC());
            long deadline = System.nanoTime() + COMMIT_TIMEOUT.toNanos();
            while (log.latest().sampleCount() < published.size() && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
            assertThat(committedIds(log.latest())).containsExactlyInAnyOrderElementsOf(published);
        } finally {
            sink.close();
            ingest.close();
        }
    }

    @Test
    void shouldStopAServiceGivenAWrongClientSecretAtStartNamingTheKey() throws Exception {
        Map<String, String> settings = new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("wrong-secret-spool"), "wrong-secret"));
        String wrong = "not-the-sink-secret-" + System.nanoTime();
        settings.put(RegistryConfig.AUTH_CLIENT_SECRET, wrong);
        try (ServiceProcess sink = ServiceProcess.start("shard-sink", ShardSinkApp.class.getName(), settings, work.resolve("wrong-secret"))) {
            assertThat(sink.waitFor(Duration.ofSeconds(120))).as("the sink exits at start").isTrue();
            assertThat(sink.exitCode()).as("exit code of a configuration error").isEqualTo(2);
            assertThat(sink.ownLog()).contains("check setting '" + RegistryConfig.AUTH_CLIENT_SECRET + "'", "shardflow-sink",
                    "HTTP 401").doesNotContain(wrong);
        }
    }

    @Test
    void shouldKeepEverySecretOutOfFilesOthersCanRead() throws Exception {
        assertThat(Files.getPosixFilePermissions(clients)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        try (Stream<Path> files = Files.walk(clients.getParent())) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.getPosixFilePermissions(file)).as("%s", file).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            }
        }
        Path workDir = stack.workDir();
        for (Path secretFile : List.of(workDir.resolve("stack.json"), workDir.resolve("idp/keycloak.conf"),
                workDir.resolve("registry/config/application.properties"))) {
            assertThat(Files.getPosixFilePermissions(secretFile)).as("%s", secretFile).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
        assertThat(Files.getPosixFilePermissions(workDir.resolve("idp"))).as("Keycloak's dir: its database holds the client secrets")
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(SecretLeaks.of(stack).assertNoWorldReadableFileHoldsOne(workDir)).as("world-readable files searched").isPositive();
    }

    private Set<String> publish(String bootstrap, Path clientConfig, SyntheticSamples synthetic, int count) throws Exception {
        Set<String> ids = new HashSet<>();
        // the edge principal's file carries the serde's OAuth2 settings and auto-register=false, find-latest=true
        try (EdgePublisher publisher = EdgePublisher.create(bootstrap, endpoints.registryUrl(), "samples", clientConfig)) {
            for (int n = 0; n < count; n++) {
                publisher.publish(synthetic.sample(n, Instant.now())).get(60, TimeUnit.SECONDS);
                ids.add(synthetic.sampleId(n));
            }
        }
        return ids;
    }

    /** python/tests_edge_integration/secure_publish.py as the edge principal; the ids its producer acknowledged. */
    private Set<String> publishWithPython(String version, String device, int count) throws Exception {
        Path repo = Path.of(System.getProperty("shardflow.repo", "..")).toAbsolutePath().normalize();
        Path output = work.resolve("python-" + device + ".log");
        ProcessBuilder builder = new ProcessBuilder(List.of(python().toString(),
                repo.resolve("python/tests_edge_integration/secure_publish.py").toString()))
                .directory(repo.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        Map<String, String> env = builder.environment();
        env.put("PYTHONPATH", repo.resolve("python").toString());
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        env.put("SHARDFLOW_BOOTSTRAP_SERVERS", endpoints.bootstrapServers());
        env.put("SHARDFLOW_REGISTRY_URL", endpoints.registryUrl());
        env.put("SHARDFLOW_KAFKA_CLIENT_CONFIG", StackPrincipal.EDGE.scramClientConfig(clients).toString());
        env.put("SHARDFLOW_REGISTRY_CONFIG", endpoints.registryConfig(IdentityClient.EDGE).orElseThrow().toString());
        env.put("SHARDFLOW_EDGE_IT_QUEUE", work.resolve("python-queue-" + device).toString());
        env.put("SHARDFLOW_EDGE_IT_DATASET", DATASET);
        env.put("SHARDFLOW_EDGE_IT_VERSION", version);
        env.put("SHARDFLOW_EDGE_IT_DEVICE", device);
        env.put("SHARDFLOW_EDGE_IT_COUNT", Integer.toString(count));
        Process process = builder.start();
        boolean ended = process.waitFor(6, TimeUnit.MINUTES);
        String text = Files.readString(output, StandardCharsets.UTF_8);
        if (!ended) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(ended && process.exitValue() == 0).as("the Python edge SDK delivered everything; its output:%n%s", text).isTrue();
        assertThat(text).contains("\"not_delivered\": 0");
        Set<String> ids = new HashSet<>();
        for (int n = 0; n < count; n++) {
            ids.add(device + "-" + n);
        }
        return ids;
    }

    private static Path python() {
        String configured = System.getenv("SHARDFLOW_PYTHON");
        Path python = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "shardflow", "venv", "bin", "python");
        if (!Files.isExecutable(python)) {
            throw new IllegalStateException("no Python at " + python + "; run scripts/setup-python.sh or set SHARDFLOW_PYTHON");
        }
        return python;
    }

    private List<String> committedIds(Snapshot snapshot) throws Exception {
        List<String> ids = new ArrayList<>();
        for (ShardEntry shard : snapshot.shards()) {
            Path file = work.resolve("shard.h5");
            Files.deleteIfExists(file);
            store.download(shard.objectKey(), file);
            for (SampleRow row : new ShardReader().read(file).rows()) {
                ids.add(row.sampleId());
            }
        }
        return ids;
    }
}
