package io.shardflow.sink.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.shard.StreamingShardWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class SinkConfigTest {

    private static Map<String, Object> minimal() {
        Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", "broker-1:9092,broker-2:9092");
        settings.put("s3.endpoint", "http://127.0.0.1:9000");
        settings.put("s3.access.key", "test");
        settings.put("s3.secret.key", "test-secret");
        settings.put("s3.bucket", "shardflow");
        settings.put("registry.url", "http://127.0.0.1:8080/apis/registry/v3");
        return settings;
    }

    @Test
    void shouldKeepTheSettingsTheCommitProtocolDependsOnWhateverTheUserPasses() {
        Map<String, Object> settings = minimal();
        settings.put("kafka.enable.auto.commit", "true");
        settings.put("kafka.isolation.level", "read_uncommitted");
        settings.put("kafka.auto.offset.reset", "latest");
        settings.put("kafka.max.poll.records", "50");

        Properties props = new SinkConfig(settings).consumerProperties();

        assertThat(props.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG)).isEqualTo(false);
        assertThat(props.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG)).isEqualTo("read_committed");
        assertThat(props.get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG)).isEqualTo("earliest");
        assertThat(props.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG)).as("tunable").isEqualTo("50");
        assertThat(props.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)).isEqualTo("broker-1:9092,broker-2:9092");
        assertThat(props.get(ConsumerConfig.GROUP_ID_CONFIG)).isEqualTo("shardflow-shard-sink");
    }

    @Test
    void shouldUseTheStreamingShardWriterUnlessJhdfIsChosen() {
        Map<String, Object> settings = minimal();
        assertThat(new SinkConfig(settings).shardWriter()).isInstanceOf(StreamingShardWriter.class);

        settings.put("shard.writer", "jhdf");
        assertThat(new SinkConfig(settings).shardWriter()).isInstanceOf(ShardWriter.class);
    }

    @Test
    void shouldLeaveCompactionOffByDefaultAndNameAKeyWithABadValue() {
        Map<String, Object> settings = minimal();
        assertThat(new SinkConfig(settings).compaction().enabled()).isFalse();

        settings.put(SinkConfig.COMPACTION_ENABLED, "true");
        settings.put(SinkConfig.COMPACTION_MIN_SMALL_SHARDS, "1");

        assertThatThrownBy(() -> new SinkConfig(settings))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("compaction.min.small.shards");
        settings.put(SinkConfig.COMPACTION_MIN_SMALL_SHARDS, "8");
        settings.put(SinkConfig.COMPACTION_INTERVAL_MS, "5000");
        assertThat(new SinkConfig(settings).compaction())
                .isEqualTo(new io.shardflow.sink.compaction.CompactionSettings(true, java.time.Duration.ofSeconds(5), 1000, 8));
    }

    @Test
    void shouldNameTheShardWriterKeyForAnUnknownWriter() {
        Map<String, Object> settings = minimal();
        settings.put("shard.writer", "netcdf");

        assertThatThrownBy(() -> new SinkConfig(settings))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shard.writer")
                .hasMessageContaining("netcdf");
    }

    @Test
    void shouldNameTheRegistryUrlWhenItIsMissing() {
        Map<String, Object> settings = minimal();
        settings.remove("registry.url");

        assertThatThrownBy(() -> new SinkConfig(settings))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("registry.url");
    }

    @Test
    void shouldReadSamplesCommittedOnlyWithoutAGroupAndNeverJumpOverAGoneOffset() {
        Map<String, Object> settings = minimal();
        settings.put("kafka.group.id", "sneaky");
        settings.put("kafka.auto.offset.reset", "earliest");

        var props = new SinkConfig(settings).sampleReaderProperties(1);

        assertThat(props).doesNotContainKey("group.id");
        assertThat(props.get("auto.offset.reset")).isEqualTo("none");
        assertThat(props.get("isolation.level")).isEqualTo("read_committed");
        assertThat(props.get("enable.auto.commit")).isEqualTo(false);
    }

    @Test
    void shouldGiveTheSampleReadersLargeFetchesAndLetKafkaSettingsOverrideThem() {
        var defaults = new SinkConfig(minimal()).sampleReaderProperties(0);

        assertThat(defaults.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG)).isEqualTo(4 << 20);
        assertThat(defaults.get(ConsumerConfig.RECEIVE_BUFFER_CONFIG)).isEqualTo(-1);
        assertThat(defaults.get(ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG)).isEqualTo("");
        // the assignments consumer keeps Kafka's defaults (its metrics are exported)
        assertThat(new SinkConfig(minimal()).consumerProperties()).doesNotContainKeys(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG);

        Map<String, Object> settings = minimal();
        settings.put("kafka.max.partition.fetch.bytes", "1048576");
        settings.put("kafka.receive.buffer.bytes", "65536");
        var overridden = new SinkConfig(settings).sampleReaderProperties(0);

        assertThat(overridden.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG)).isEqualTo("1048576");
        assertThat(overridden.get(ConsumerConfig.RECEIVE_BUFFER_CONFIG)).isEqualTo("65536");
        assertThat(overridden.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG)).isEqualTo("read_committed");
    }

    @Test
    void shouldNameTheKeyOfAnInvalidValue() {
        Map<String, Object> settings = minimal();
        settings.put("retry.attempts", "0");

        assertThatThrownBy(() -> new SinkConfig(settings))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("retry.attempts");
    }

    @Test
    void shouldRefuseAnEmptyBootstrapServerList() {
        Map<String, Object> settings = minimal();
        settings.put("bootstrap.servers", "");

        assertThatThrownBy(() -> new SinkConfig(settings))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("bootstrap.servers");
    }

    @Test
    void shouldRequireTheBootstrapServers() {
        Map<String, Object> settings = minimal();
        settings.remove("bootstrap.servers");

        assertThatThrownBy(() -> new SinkConfig(settings))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("bootstrap.servers");
    }

    @Test
    void shouldOfferNoSettingThatInjectsFaults() {
        // Crash and freeze injection is installed by the chaos harness in code (SinkHook), never by configuration.
        assertThat(SinkConfig.DEFINITION.names()).noneMatch(name -> name.contains("fault") || name.contains("crash"));
    }
}
