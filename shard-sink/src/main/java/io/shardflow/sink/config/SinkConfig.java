package io.shardflow.sink.config;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.S3Config;
import io.shardflow.app.ServiceConfig;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.shard.ShardWriterKind;
import io.shardflow.dataset.store.S3Settings;
import io.shardflow.sink.compaction.CompactionSettings;
import io.shardflow.sink.flow.Backpressure;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * shard-sink settings, validated at start so a bad value stops the process with the key named.
 * Keys prefixed {@code kafka.} go to the consumer as they are (without the prefix), except the ones
 * the commit protocol depends on, which are fixed.
 */
public final class SinkConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String GROUP_ID = "group.id";
    public static final String TOPIC_ASSIGNMENTS = "topic.assignments";
    public static final String TOPIC_SAMPLES = "topic.samples";
    public static final String REGISTRY_URL = "registry.url";
    public static final String BUILD_THREADS = "build.threads";
    public static final String BUILD_MEMORY_BUDGET_BYTES = "build.memory.budget.bytes";
    public static final String SOURCE_READ_TIMEOUT_MS = "source.read.timeout.ms";
    public static final String SPOOL_DIR = "spool.dir";
    public static final String COMMITTER_ID = "committer.id";
    public static final String POLL_MS = "poll.ms";
    public static final String RETRY_ATTEMPTS = "retry.attempts";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String METRICS_PORT = "metrics.port";
    public static final String SPOOL_MAX_BYTES = "spool.max.bytes";
    public static final String BACKPRESSURE_BACKOFF_MS = "backpressure.backoff.ms";
    public static final String BACKPRESSURE_MAX_BACKOFF_MS = "backpressure.max.backoff.ms";
    public static final String SHARD_WRITER = "shard.writer";
    public static final String KAFKA_PREFIX = KafkaClientConfig.KAFKA_PREFIX;
    public static final String COMPACTION_ENABLED = CompactionSettings.ENABLED;
    public static final String COMPACTION_INTERVAL_MS = CompactionSettings.INTERVAL_MS;
    public static final String COMPACTION_TARGET_SAMPLES = CompactionSettings.TARGET_SAMPLES;
    public static final String COMPACTION_MIN_SMALL_SHARDS = CompactionSettings.MIN_SMALL_SHARDS;

    public static final ConfigDef DEFINITION = new ConfigDef()
            .define(BOOTSTRAP_SERVERS, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.ValidList.anyNonDuplicateValues(false, false), Importance.HIGH,
                    "Kafka bootstrap servers, host:port[,host:port]")
            .define(GROUP_ID, Type.STRING, "shardflow-shard-sink", new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "consumer group; instances with the same group share the shard-assignments partitions")
            .define(TOPIC_ASSIGNMENTS, Type.STRING, "shard-assignments", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    "topic written by ingest-app")
            .define(TOPIC_SAMPLES, Type.STRING, "samples", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    "topic the devices publish to; the sink reads the samples a shard's decisions name from it")
            .define(REGISTRY_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Apicurio Registry v3 API URL, to decode samples records as ingest-app does")
            .define(BUILD_THREADS, Type.INT, 2, Range.between(1, 64), Importance.LOW,
                    "shards read, built and uploaded at once, off the poll thread; one samples-topic consumer each")
            .define(BUILD_MEMORY_BUDGET_BYTES, Type.LONG, 0L, Range.atLeast(0), Importance.LOW,
                    "native memory (beyond the heap) for shards built in memory, all build threads together: a shard "
                            + "reserves about twice its size while built, then its size until uploaded; one that does not fit, "
                            + "a variable-shape or gzip shard, or any with shard.writer=jhdf is built on local disk; 0 (the "
                            + "default) builds all on disk: in memory the sink spent 10% less CPU on 12 KB samples but 20% more "
                            + "on 150 KB ones")
            .define(SOURCE_READ_TIMEOUT_MS, Type.LONG, 60_000L, Range.atLeast(100), Importance.LOW,
                    "longest wait for the broker while reading one shard's samples; past it the read counts as an outage")
            .define(SPOOL_DIR, Type.STRING, System.getProperty("java.io.tmpdir") + "/shardflow-spool", new ConfigDef.NonEmptyString(),
                    Importance.HIGH, "local directory for samples of open shards; one per instance")
            .define(COMMITTER_ID, Type.STRING, defaultCommitterId(), new ConfigDef.NonEmptyString(), Importance.LOW,
                    "name written into commit entries, to tell instances apart")
            .define(POLL_MS, Type.LONG, 200L, Range.between(10, 10_000), Importance.LOW, "consumer poll timeout")
            .define(RETRY_ATTEMPTS, Type.INT, 8, Range.atLeast(1), Importance.MEDIUM,
                    "attempts for one object-store operation; after the last, the sink pauses its partitions and keeps "
                            + "retrying the pending shards with backoff (backpressure) until the store answers")
            .define(RETRY_BACKOFF_MS, Type.LONG, 200L, Range.atLeast(1), Importance.LOW, "first retry delay; doubles, with jitter")
            .define(METRICS_PORT, Type.INT, -1, Range.atLeast(-1), Importance.LOW,
                    "port of the /metrics, /health and /ready endpoint (on metrics.host); -1 disables it, 0 picks a free port")
            .define(SPOOL_MAX_BYTES, Type.LONG, 4L << 30, Range.atLeast(1), Importance.MEDIUM,
                    "spool budget: above it, partitions that hold no open shard are paused until sealed shards are committed")
            .define(BACKPRESSURE_BACKOFF_MS, Type.LONG, 1_000L, Range.atLeast(1), Importance.LOW,
                    "during an object-store outage, the first wait before pending shards are tried again; doubles, with jitter")
            .define(BACKPRESSURE_MAX_BACKOFF_MS, Type.LONG, 30_000L, Range.atLeast(1), Importance.LOW,
                    "during an object-store outage, the longest wait between attempts")
            .define(SHARD_WRITER, Type.STRING, ShardWriterKind.HDF5.settingValue(),
                    ConfigDef.ValidString.in(ShardWriterKind.settingValues().toArray(String[]::new)), Importance.LOW,
                    "HDF5 writer of shard files: 'hdf5' (HDF Group C library, streams rows, heap bounded whatever the shard "
                            + "size; the default) or 'jhdf' (pure Java, holds a whole shard in heap); same file layout either way");

    static {
        S3Config.define(DEFINITION);
        KafkaClientConfig.define(DEFINITION);
        RegistryConfig.define(DEFINITION);
        ServiceConfig.define(DEFINITION);
        CompactionSettings.define(DEFINITION);
    }

    public SinkConfig(Map<?, ?> settings) {
        super(DEFINITION, settings);
    }

    private static String defaultCommitterId() {
        return "shard-sink-" + ManagementFactory.getRuntimeMXBean().getName();
    }

    public Backpressure backpressure() {
        Duration first = Duration.ofMillis(getLong(BACKPRESSURE_BACKOFF_MS));
        Duration max = Duration.ofMillis(Math.max(getLong(BACKPRESSURE_MAX_BACKOFF_MS), first.toMillis()));
        return Backpressure.system(first, max, getLong(SPOOL_MAX_BYTES));
    }

    public S3Settings s3() {
        return S3Config.settings(this);
    }

    public ShardFileWriter shardWriter() {
        return ShardWriterKind.fromSetting(getString(SHARD_WRITER)).create();
    }

    public CompactionSettings compaction() {
        return CompactionSettings.of(this);
    }

    public Path spoolDir() {
        return Path.of(getString(SPOOL_DIR));
    }

    public Duration pollTimeout() {
        return Duration.ofMillis(getLong(POLL_MS));
    }

    public String bootstrapServers() {
        return String.join(",", getList(BOOTSTRAP_SERVERS));
    }

    /** Security and {@code kafka.*} settings for every Kafka client of the process (see {@link KafkaClientConfig}). */
    public Map<String, Object> kafkaClientSettings() {
        return KafkaClientConfig.clientSettings(this);
    }

    /** The registry settings of the samples topic's deserializer (see {@link RegistryConfig}). */
    public Map<String, Object> serdeSettings() {
        return RegistryConfig.serdeSettings(this, getString(REGISTRY_URL));
    }

    /**
     * The sample readers' own defaults, under any {@code kafka.*} setting. A reader streams a whole
     * shard (megabytes) from one partition: fetches of 4 MiB instead of 1 MiB make a quarter of the
     * fetch round trips, whose bookkeeping (requests, sessions, per-fetch metrics) is paid per fetch,
     * not per byte; the socket's receive buffer is left to the OS's autotuning rather
     * than Kafka's 64 KiB, so each fetch is read in a few large reads. What a read fetched past the
     * shard's last record stays with the reader for the lane's next shard (KafkaSampleSource), at most
     * about two fetches per idle reader. The readers move between partitions, so their per-partition
     * metrics would be registered and dropped again and again: no metrics reporter (their lag means nothing; the assignments consumer keeps its own).
     * Measured in docs/performance.md ("Steady state").
     */
    static final Map<String, Object> SAMPLE_READER_DEFAULTS = Map.of(
            ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 << 20,
            ConsumerConfig.RECEIVE_BUFFER_CONFIG, -1,
            ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG, "");

    /**
     * Properties of the consumers that read samples by offset: no group and no offset commits (the
     * decisions carry the offsets), committed data only, and a named offset that is gone is an error
     * to report, never a reason to jump elsewhere.
     */
    public Properties sampleReaderProperties(int reader) {
        Properties props = new Properties();
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, getString(GROUP_ID) + "-samples-" + reader);
        props.putAll(SAMPLE_READER_DEFAULTS);
        props.putAll(kafkaClientSettings());
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return committedBytesOnly(props, "none");
    }

    /** Consumer properties: read only committed transactions, commit offsets ourselves, start at the beginning. */
    public Properties consumerProperties() {
        Properties props = new Properties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, getString(GROUP_ID));
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        props.putAll(kafkaClientSettings());
        return committedBytesOnly(props, "earliest");
    }

    /**
     * Fixed whatever the user passes: ingest-app writes transactionally, and offsets may only move
     * after a durable commit, so only committed records are read and nothing commits on its own.
     */
    private Properties committedBytesOnly(Properties props, String offsetReset) {
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, offsetReset);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }
}
