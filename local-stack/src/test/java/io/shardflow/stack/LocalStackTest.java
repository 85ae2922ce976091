package io.shardflow.stack;

import static org.assertj.core.api.Assertions.assertThat;

import io.minio.GetObjectArgs;
import io.minio.GetObjectResponse;
import io.minio.MinioClient;
import io.minio.PutObjectArgs;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import okhttp3.OkHttpClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Starts the real servers installed by scripts/fetch-tools.sh. No skipping when they are missing:
 * a stack that cannot start fails the build with the fix in the message.
 */
class LocalStackTest {

    private static final String SCHEMA = "{\"type\":\"record\",\"name\":\"Probe\",\"namespace\":\"io.shardflow.test\","
            + "\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}";
    private static final HttpClient HTTP = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();

    @Test
    void shouldServeKafkaRegistryAndS3ProxyAndKeepObjectsAndSchemasAcrossKill9() throws Exception {
        Path dir = freshWorkDir("s3proxy");
        try (LocalStack stack = LocalStack.start(StackConfig.defaults(dir))) {
            assertAllUp(dir);
            roundTripKafka(stack, "first");
            roundTripRegistry(stack, "probe-s3proxy");
            roundTripS3ThroughKill9(stack);

            // the registry keeps its H2 database in the work dir, so schemas survive a crash
            stack.kill(Role.REGISTRY);
            stack.start(Role.REGISTRY);
            assertThat(getSchema(stack, "probe-s3proxy")).isEqualTo(SCHEMA);
        }
        assertThat(LocalStack.status(dir).values()).noneMatch(RecordedStack.ServerStatus::up);
    }

    @Test
    void shouldServeKafkaRegistryAndMinioAndKeepObjectsAndRecordsAcrossKill9() throws Exception {
        Path dir = freshWorkDir("minio");
        try (LocalStack stack = LocalStack.start(StackConfig.defaults(dir).withS3Kind(S3Kind.MINIO))) {
            assertAllUp(dir);
            roundTripKafka(stack, "first");
            roundTripRegistry(stack, "probe-minio");
            roundTripS3ThroughKill9(stack);

            // same port, same log dir: the record written before the crash is still there
            stack.kill(Role.BROKER);
            stack.start(Role.BROKER);
            roundTripKafka(stack, "first", "second");

            // stop it as the CLI would from another process: only stack.json is used
            List<Long> pids = List.of(stack.pid(Role.BROKER), stack.pid(Role.REGISTRY), stack.pid(Role.S3));
            assertThat(LocalStack.down(dir)).hasSize(3).allMatch(line -> line.contains("stopped"));
            assertThat(pids).noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        }
    }

    private static Path freshWorkDir(String name) throws IOException {
        Path dir = Path.of("target", "stack-test-" + name).toAbsolutePath();
        LocalStack.down(dir); // servers orphaned by an earlier, killed test run
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(path);
                }
            }
        }
        return dir;
    }

    private static void assertAllUp(Path dir) {
        Map<Role, RecordedStack.ServerStatus> status = LocalStack.status(dir);
        assertThat(status).containsOnlyKeys(Role.of(false).toArray(Role[]::new));
        assertThat(status.values()).allMatch(RecordedStack.ServerStatus::up, "up");
    }

    /** Produces one record, then reads the topic from the start in a fresh consumer group. */
    private static void roundTripKafka(LocalStack stack, String... expectedValues) {
        String value = expectedValues[expectedValues.length - 1];
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("samples", 0, "key", value)).get();
        } catch (Exception e) {
            throw new AssertionError("produce to " + stack.bootstrapServers() + " failed", e);
        }
        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "local-stack-test-" + System.nanoTime());
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("samples"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expectedValues.length && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(record.value());
                }
            }
            consumer.commitSync();
        }
        assertThat(values).containsExactly(expectedValues);
    }

    private static void roundTripRegistry(LocalStack stack, String artifactId) throws Exception {
        String body = "{\"artifactId\":\"" + artifactId + "\",\"artifactType\":\"AVRO\",\"firstVersion\":{"
                + "\"content\":{\"content\":" + jsonString(SCHEMA) + ",\"contentType\":\"application/json\"}}}";
        HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(
                        URI.create(stack.registryUrl() + "/groups/default/artifacts"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as("create artifact: %s", created.body()).isEqualTo(200);
        assertThat(getSchema(stack, artifactId)).isEqualTo(SCHEMA);
    }

    private static String getSchema(LocalStack stack, String artifactId) throws Exception {
        HttpResponse<String> read = HTTP.send(HttpRequest.newBuilder(URI.create(stack.registryUrl()
                + "/groups/default/artifacts/" + artifactId + "/versions/branch=latest/content")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(read.statusCode()).as("read artifact: %s", read.body()).isEqualTo(200);
        return read.body();
    }

    private static String jsonString(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** PUT, GET, kill -9 the S3 server, start it again on the same port and data dir, GET again. */
    private static void roundTripS3ThroughKill9(LocalStack stack) throws Exception {
        byte[] payload = ("shard bytes for " + stack.s3Kind()).getBytes(StandardCharsets.UTF_8);
        String key = "datasets/probe/v1/shard-000000.h5";
        OkHttpClient http = new OkHttpClient();
        try {
            MinioClient s3 = MinioClient.builder().endpoint(stack.s3Endpoint())
                    .credentials(stack.s3AccessKey(), stack.s3SecretKey()).region("us-east-1").httpClient(http).build();
            s3.putObject(PutObjectArgs.builder().bucket(stack.bucket()).object(key)
                    .stream(new ByteArrayInputStream(payload), payload.length, -1).build());
            assertThat(get(s3, stack.bucket(), key)).isEqualTo(payload);

            long oldPid = stack.pid(Role.S3);
            stack.kill(Role.S3);
            assertThat(stack.isRunning(Role.S3)).isFalse();
            assertThat(ProcessHandle.of(oldPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            stack.start(Role.S3);
            assertThat(stack.pid(Role.S3)).isNotEqualTo(oldPid);
            assertThat(LocalStack.read(stack.workDir()).orElseThrow().servers().get(Role.S3).pid())
                    .isEqualTo(stack.pid(Role.S3));

            assertThat(get(s3, stack.bucket(), key)).isEqualTo(payload);
        } finally {
            http.dispatcher().executorService().shutdown();
            http.connectionPool().evictAll();
        }
    }

    private static byte[] get(MinioClient s3, String bucket, String key) throws Exception {
        try (GetObjectResponse response = s3.getObject(GetObjectArgs.builder().bucket(bucket).object(key).build())) {
            return response.readAllBytes();
        }
    }
}
