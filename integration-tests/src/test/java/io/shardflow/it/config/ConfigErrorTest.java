package io.shardflow.it.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.app.S3Config;
import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.it.support.TestStack;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.sink.config.SinkConfig;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bad setting or an unreachable dependency must stop ingest-app and shard-sink at start, as real
 * processes, with exit code 2 and one line on stderr that names the setting.
 */
class ConfigErrorTest {

    private static final String INGEST = IngestApp.class.getName();
    private static final String SINK = ShardSinkApp.class.getName();

    @TempDir
    static Path work;
    private static TestStack stack;
    private static StackEndpoints endpoints;

    @BeforeAll
    static void startStack() {
        stack = TestStack.start(work);
        endpoints = stack.endpoints();
    }

    @AfterAll
    static void stopStack() {
        stack.close();
    }

    private static Map<String, String> ingestSettings() {
        return new HashMap<>(PipelineSettings.ingest(endpoints, 10, 1 << 20, java.time.Duration.ofSeconds(1), work.resolve("ingest")));
    }

    private static Map<String, String> sinkSettings() {
        return new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "t"));
    }

    @Test
    void shouldNameAMissingRequiredSetting() throws Exception {
        Map<String, String> settings = ingestSettings();
        settings.remove(IngestConfig.BOOTSTRAP_SERVERS);
        assertStopsNaming(INGEST, settings, IngestConfig.BOOTSTRAP_SERVERS);
    }

    @Test
    void shouldNameAMalformedNumber() throws Exception {
        Map<String, String> settings = ingestSettings();
        settings.put(IngestConfig.SHARD_MAX_SAMPLES, "lots");
        assertStopsNaming(INGEST, settings, IngestConfig.SHARD_MAX_SAMPLES);
    }

    @Test
    void shouldNameAnOutOfRangeValue() throws Exception {
        Map<String, String> settings = ingestSettings();
        settings.put(IngestConfig.SHARD_MAX_AGE_MS, "0");
        assertStopsNaming(INGEST, settings, IngestConfig.SHARD_MAX_AGE_MS);
    }

    @Test
    void shouldNameAMissingSinkSetting() throws Exception {
        Map<String, String> settings = sinkSettings();
        settings.remove(S3Config.BUCKET);
        assertStopsNaming(SINK, settings, S3Config.BUCKET);
    }

    @Test
    void shouldNameAnUnreachableObjectStore() throws Exception {
        Map<String, String> settings = sinkSettings();
        settings.put(S3Config.ENDPOINT, "http://127.0.0.1:" + closedPort());
        assertStopsNaming(SINK, settings, S3Config.ENDPOINT);
    }

    @Test
    void shouldNameAMissingBucket() throws Exception {
        Map<String, String> settings = sinkSettings();
        settings.put(S3Config.BUCKET, "no-such-bucket");
        assertStopsNaming(SINK, settings, S3Config.BUCKET);
    }

    @Test
    void shouldNameAnUnreachableBroker() throws Exception {
        Map<String, String> settings = sinkSettings();
        settings.put(SinkConfig.BOOTSTRAP_SERVERS, "127.0.0.1:" + closedPort());
        assertStopsNaming(SINK, settings, SinkConfig.BOOTSTRAP_SERVERS);
    }

    @Test
    void shouldNameAnUnreachableRegistry() throws Exception {
        Map<String, String> settings = ingestSettings();
        settings.put(IngestConfig.REGISTRY_URL, "http://127.0.0.1:" + closedPort() + "/apis/registry/v3");
        assertStopsNaming(INGEST, settings, IngestConfig.REGISTRY_URL);
    }

    @Test
    void shouldNameASamplesTopicThatForgetsSamplesBeforeTheSinkReadsThem() throws Exception {
        String topic = "samples-short-retention";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, endpoints.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, "60000"))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Map<String, String> settings = ingestSettings();
        settings.put(IngestConfig.TOPIC_SAMPLES, topic);
        String line = assertStopsNaming(INGEST, settings, IngestConfig.TOPIC_SAMPLES);
        assertThat(line).contains("retention.ms=60000").contains(topic).contains(IngestConfig.SHARD_MAX_AGE_MS);
    }

    /** Returns the one line that names the setting. */
    private String assertStopsNaming(String mainClass, Map<String, String> settings, String key) throws Exception {
        Path config = Files.createTempFile(work, "bad", ".properties");
        Properties props = new Properties();
        props.putAll(settings);
        try (Writer out = Files.newBufferedWriter(config)) {
            props.store(out, null);
        }
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"), mainClass,
                config.toString())).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("process stops by itself").isTrue();
        assertThat(process.exitValue()).as("exit code; stderr:%n%s", stderr).isEqualTo(2);
        List<String> lines = stderr.lines().filter(l -> l.startsWith("ingest-app:") || l.startsWith("shard-sink:")).toList();
        assertThat(lines).as("stderr:%n%s", stderr).hasSize(1);
        assertThat(lines.get(0)).contains(key);
        return lines.get(0);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
