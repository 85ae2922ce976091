package io.shardflow.it.security;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.it.support.SecureStackExtension;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.StackPrincipal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The broker of {@code stack up --secure}, as each principal sees it: only SASL_SSL (SCRAM-SHA-512)
 * and mTLS clients that prove who they are, and each allowed only what its role needs (docs/ARCHITECTURE.md
 * § 6 and invariant 9). The pipeline on the same stack is SecureStackTest.
 */
@ExtendWith(SecureStackExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureKafkaTest {

    private LocalStack stack;
    private Path clients;
    private String bootstrap;

    @BeforeAll
    void useTheSecureStack(LocalStack secureStack) {
        stack = secureStack;
        clients = stack.clientConfigDir().orElseThrow();
        bootstrap = stack.bootstrapServers();
    }

    @Test
    void shouldRefuseTheEdgePrincipalEverythingButWritingSamples() {
        Map<String, Object> edge = client(StackPrincipal.EDGE.scramClientConfig(clients), bootstrap);

        assertThatThrownBy(() -> readOne(edge, "samples")).as("edge reads samples").isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> produce(edge, "shard-assignments")).as("edge writes shard-assignments")
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> createTopic(edge, "edge-made")).as("edge creates a topic")
                .hasRootCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void shouldRefuseTheSinkAndIngestPrincipalsWhatTheirRolesDoNotUse() {
        Map<String, Object> sink = client(StackPrincipal.SINK.scramClientConfig(clients), bootstrap);
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
        Map<String, Object> wrongPassword = client(StackPrincipal.EDGE.scramClientConfig(clients), bootstrap);
        wrongPassword.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"shardflow-edge\" password=\"not-the-password\";");
        Map<String, Object> noCertificate = client(StackPrincipal.EDGE.mtlsClientConfig(clients), stack.mtlsBootstrapServers().orElseThrow());
        noCertificate.keySet().removeIf(key -> key.startsWith("ssl.keystore") || key.equals("ssl.key.password"));

        assertThatThrownBy(() -> produce(wrongPassword, "samples")).as("wrong SCRAM password")
                .hasRootCauseInstanceOf(SaslAuthenticationException.class);
        assertThatThrownBy(() -> produce(noCertificate, "samples")).as("mTLS listener without a client certificate")
                .hasCauseInstanceOf(SslAuthenticationException.class);
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
