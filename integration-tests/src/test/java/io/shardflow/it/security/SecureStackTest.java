package io.shardflow.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.app.KafkaClientConfig;
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
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.LocalPipeline;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.Role;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.StackPrincipal;
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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stack up --secure} on real parts: a broker taking only SASL_SSL (SCRAM-SHA-512) and mTLS
 * clients, with least-privilege ACLs per principal. The pipeline runs end to end as its own
 * principals over both, each forbidden action is refused by the broker, and no secret reaches a
 * log, a command line or a file others can read. One stack for the class: it is the slow part.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureStackTest {

    private static final String DATASET = "cams";
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(150);

    @TempDir
    static Path work;

    private LocalStack stack;
    private StackEndpoints endpoints;
    private Path clients;
    private S3ObjectStore store;

    @BeforeAll
    void startSecureStack() throws Exception {
        // MinIO, the production target, serving https with a certificate of the stack's CA: every S3
        // call below, the services' included, goes over TLS trusting that CA (s3.ca.bundle) only.
        stack = LocalStack.start(StackConfig.defaults(work.resolve("stack")).withSecure(true).withS3Kind(S3Kind.MINIO));
        endpoints = StackEndpoints.of(stack);
        clients = stack.clientConfigDir().orElseThrow();
        assertThat(endpoints.s3Endpoint()).startsWith("https://");
        store = S3ObjectStore.connect(endpoints.s3Settings());
        for (String version : List.of("scram", "mtls")) {
            new DatasetCatalog(store).create(new DatasetSpec(DATASET, version,
                    List.of(TensorSpec.parse("image:float32:3x4x4"), TensorSpec.parse("label:int64")),
                    "label", "it", "secure stack test", 0, false, Instant.now()));
        }
    }

    @AfterAll
    void stopStack() throws Exception {
        if (store != null) {
            store.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void shouldCommitExactlyThePublishedSamplesWithEveryServiceOnItsOwnScramPrincipal() throws Exception {
        SyntheticSamples synthetic = new SyntheticSamples(DATASET, "scram", "cam-s", 3, 4, 10, 7);
        // the quickstart's way: each service its own JVM, settings in an owner-only file
        try (LocalPipeline pipeline = LocalPipeline.start(endpoints, work.resolve("scram"), 40, Duration.ofSeconds(2), "scram")) {
            Set<String> published = publish(endpoints.bootstrapServers(), StackPrincipal.EDGE.scramClientConfig(clients), synthetic, 120);
            CommitLog log = new CommitLog(store, DATASET, "scram", Clock.systemUTC());
            pipeline.awaitCommitted(log, published.size(), COMMIT_TIMEOUT, Duration.ofMillis(500), snapshot -> { });

            assertThat(committedIds(log.latest())).containsExactlyInAnyOrderElementsOf(published);
            assertNoSecretIn(pipeline.logs(), pipeline.pids());
            assertThat(Files.readString(pipeline.logs().get(0))).as("ingest-app could read samples' retention with its ACLs")
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
    void shouldRefuseTheEdgePrincipalEverythingButWritingSamples() {
        Map<String, Object> edge = client(StackPrincipal.EDGE.scramClientConfig(clients), endpoints.bootstrapServers());

        assertThatThrownBy(() -> readOne(edge, "samples")).as("edge reads samples").isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> produce(edge, "shard-assignments")).as("edge writes shard-assignments")
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> createTopic(edge, "edge-made")).as("edge creates a topic")
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void shouldRefuseTheSinkAndIngestPrincipalsWhatTheirRolesDoNotUse() {
        Map<String, Object> sink = client(StackPrincipal.SINK.scramClientConfig(clients), endpoints.bootstrapServers());
        Map<String, Object> ingest = client(StackPrincipal.INGEST.mtlsClientConfig(clients), stack.mtlsBootstrapServers().orElseThrow());

        // The sink may DESCRIBE samples (it reads them), so the producer is refused one step later: at
        // the idempotent producer's id, which needs a cluster permission it does not have either.
        assertThatThrownBy(() -> produce(sink, "samples")).as("sink writes samples")
                .hasRootCauseInstanceOf(AuthorizationException.class);
        // It reads samples (the pipeline tests above prove it), but not the dead letters.
        assertThatThrownBy(() -> readOne(sink, "samples-dlq")).as("sink reads samples-dlq")
                .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> readOne(ingest, "shard-assignments")).as("ingest reads shard-assignments")
                .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> deleteTopic(ingest, "samples")).as("ingest deletes samples")
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void shouldRefuseClientsThatCannotProveWhoTheyAre() throws Exception {
        Map<String, Object> wrongPassword = client(StackPrincipal.EDGE.scramClientConfig(clients), endpoints.bootstrapServers());
        wrongPassword.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"shardflow-edge\" password=\"not-the-password\";");
        Map<String, Object> noCertificate = client(StackPrincipal.EDGE.mtlsClientConfig(clients), stack.mtlsBootstrapServers().orElseThrow());
        noCertificate.keySet().removeIf(key -> key.startsWith("ssl.keystore") || key.equals("ssl.key.password"));

        assertThatThrownBy(() -> produce(wrongPassword, "samples")).as("wrong SCRAM password")
                .hasRootCauseInstanceOf(SaslAuthenticationException.class);
        assertThatThrownBy(() -> produce(noCertificate, "samples")).as("mTLS listener without a client certificate")
                .hasCauseInstanceOf(SslAuthenticationException.class);
    }

    @Test
    void shouldKeepEverySecretFileOwnerOnly() throws Exception {
        assertThat(Files.getPosixFilePermissions(clients)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        try (Stream<Path> files = Files.walk(clients.getParent())) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.getPosixFilePermissions(file)).as("%s", file).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            }
        }
        assertThat(Files.getPosixFilePermissions(stack.workDir().resolve("stack.json"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    /** Every secret of the stack: SCRAM and key-store passwords from the client files, and the S3 secret key. */
    private List<String> secrets() throws Exception {
        List<String> secrets = new ArrayList<>(List.of(endpoints.s3SecretKey()));
        for (StackPrincipal principal : StackPrincipal.values()) {
            Map<String, Object> scram = KafkaClientConfig.load(principal.scramClientConfig(clients).toString());
            String jaas = scram.get("sasl.jaas.config").toString();
            secrets.add(jaas.substring(jaas.indexOf("password=\"") + 10, jaas.lastIndexOf('"')));
            secrets.add(KafkaClientConfig.load(principal.mtlsClientConfig(clients).toString()).get("ssl.keystore.password").toString());
        }
        assertThat(secrets).allSatisfy(secret -> assertThat(secret).hasSizeGreaterThanOrEqualTo(8));
        return secrets;
    }

    /** The services' and servers' logs and command lines hold none of the secrets. */
    private void assertNoSecretIn(List<Path> serviceLogs, List<Long> servicePids) throws Exception {
        List<String> secrets = secrets();
        List<Path> logs = new ArrayList<>(serviceLogs);
        for (Role role : Role.values()) {
            logs.add(stack.logFile(role));
        }
        List<Long> pids = new ArrayList<>(servicePids);
        for (Role role : Role.values()) {
            pids.add(stack.pid(role));
        }
        for (Path log : logs) {
            String text = Files.readString(log);
            assertThat(text).as("log %s", log).isNotEmpty();
            for (String secret : secrets) {
                assertThat(text).as("log %s", log).doesNotContain(secret);
            }
        }
        for (long pid : pids) {
            String commandLine = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
            assertThat(commandLine).as("pid %d", pid).isNotBlank();
            for (String secret : secrets) {
                assertThat(commandLine).as("command line of pid %d", pid).doesNotContain(secret);
            }
        }
    }

    private Set<String> publish(String bootstrap, Path clientConfig, SyntheticSamples synthetic, int count) throws Exception {
        Set<String> ids = new HashSet<>();
        try (EdgePublisher publisher = EdgePublisher.create(bootstrap, endpoints.registryUrl(), "samples", clientConfig)) {
            for (int n = 0; n < count; n++) {
                publisher.publish(synthetic.sample(n, Instant.now())).get(60, TimeUnit.SECONDS);
                ids.add(synthetic.sampleId(n));
            }
        }
        return ids;
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

    private static Map<String, Object> client(Path clientConfig, String bootstrap) {
        Map<String, Object> settings = new HashMap<>(KafkaClientConfig.load(clientConfig.toString()));
        settings.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        return settings;
    }

    private static void readOne(Map<String, Object> settings, String topic) {
        Map<String, Object> props = new HashMap<>(settings);
        props.remove(ProducerConfig.MAX_BLOCK_MS_CONFIG);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500));
            }
        }
    }

    private static void produce(Map<String, Object> settings, String topic) throws Exception {
        Map<String, Object> props = new HashMap<>(settings);
        props.remove(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, "forbidden".getBytes())).get(30, TimeUnit.SECONDS);
        }
    }

    private static void createTopic(Map<String, Object> settings, String topic) throws Exception {
        try (Admin admin = Admin.create(adminSettings(settings))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void deleteTopic(Map<String, Object> settings, String topic) throws Exception {
        try (Admin admin = Admin.create(adminSettings(settings))) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static Map<String, Object> adminSettings(Map<String, Object> settings) {
        Map<String, Object> props = new HashMap<>(settings);
        props.remove(ProducerConfig.MAX_BLOCK_MS_CONFIG);
        return props;
    }

}
