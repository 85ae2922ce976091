package io.shardflow.ingest.config;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.S3Config;
import io.shardflow.app.ServiceConfig;
import io.shardflow.dataset.store.S3Settings;
import io.shardflow.ingest.seal.SealLimits;
import io.shardflow.ingest.topology.IngestTopology;
import io.shardflow.app.validate.SampleLimits;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * ingest-app settings, validated by Kafka's {@link ConfigDef} when the process starts, so a missing
 * or malformed setting stops it with a message that names the key. Keys prefixed {@code kafka.} are
 * handed to Kafka Streams as they are (without the prefix).
 */
public final class IngestConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String APPLICATION_ID = "application.id";
    public static final String REGISTRY_URL = "registry.url";
    public static final String TOPIC_SAMPLES = "topic.samples";
    public static final String TOPIC_ASSIGNMENTS = "topic.assignments";
    public static final String TOPIC_DLQ = "topic.dlq";
    public static final String SHARD_MAX_SAMPLES = "shard.max.samples";
    public static final String SHARD_MAX_BYTES = "shard.max.bytes";
    public static final String SHARD_MAX_AGE_MS = "shard.max.age.ms";
    public static final String SAMPLES_RETENTION_MARGIN_MS = "samples.retention.margin.ms";
    public static final String DEDUPE_WINDOW_MS = "dedupe.window.ms";
    public static final String QUEUE_SEQUENCE_HORIZON_MS = "queue.sequence.horizon.ms";
    /** 30 days: well above the edge SDKs' default resend horizon (7 days), for devices' clock error. */
    public static final long DEFAULT_QUEUE_SEQUENCE_HORIZON_MS = 30L * 24 * 3_600_000;
    public static final String SEAL_TICK_MS = "seal.tick.ms";
    public static final String SAMPLE_MAX_BYTES = "sample.max.bytes";
    public static final String STATE_DIR = "state.dir";
    public static final String SPEC_MISS_CACHE_MS = "spec.miss.cache.ms";
    public static final String SPEC_CACHE_MAX_ENTRIES = "spec.cache.max.entries";
    public static final String ID_MAX_CHARS = "id.max.chars";
    public static final String ATTRIBUTES_MAX_COUNT = "attributes.max.count";
    public static final String ATTRIBUTE_KEY_MAX_CHARS = "attribute.key.max.chars";
    public static final String ATTRIBUTE_VALUE_MAX_CHARS = "attribute.value.max.chars";
    public static final String DLQ_MAX_BYTES = "dlq.max.bytes";

    /** Matches the {@code max.message.bytes} the local stack gives the samples topic, less room for key and headers. */
    public static final long DEFAULT_SAMPLE_MAX_BYTES = 1L << 20;
    /** Matches the {@code max.message.bytes} the local stack gives the dead-letter topic. */
    public static final long DEFAULT_DLQ_MAX_BYTES = (1L << 20) + (128L << 10);
    public static final String METRICS_PORT = "metrics.port";
    public static final String KAFKA_PREFIX = KafkaClientConfig.KAFKA_PREFIX;

    public static final ConfigDef DEFINITION = new ConfigDef()
            .define(BOOTSTRAP_SERVERS, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.ValidList.anyNonDuplicateValues(false, false), Importance.HIGH,
                    "Kafka bootstrap servers, host:port[,host:port]")
            .define(APPLICATION_ID, Type.STRING, "shardflow-ingest", new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Kafka Streams application id; instances with the same id share the work")
            .define(REGISTRY_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Apicurio Registry v3 API URL, e.g. http://127.0.0.1:8080/apis/registry/v3")
            .define(TOPIC_SAMPLES, Type.STRING, "samples", new ConfigDef.NonEmptyString(), Importance.MEDIUM, "input topic")
            .define(TOPIC_ASSIGNMENTS, Type.STRING, "shard-assignments", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    "output topic read by shard-sink")
            .define(TOPIC_DLQ, Type.STRING, "samples-dlq", new ConfigDef.NonEmptyString(), Importance.MEDIUM, "dead-letter topic")
            .define(SHARD_MAX_SAMPLES, Type.INT, 1000, Range.atLeast(1), Importance.HIGH, "seal a shard at this many samples")
            .define(SHARD_MAX_BYTES, Type.LONG, 64L << 20, Range.atLeast(1), Importance.HIGH,
                    "seal a shard before its tensor payload would exceed this many bytes")
            .define(SHARD_MAX_AGE_MS, Type.LONG, 60_000L, Range.atLeast(1), Importance.HIGH,
                    "seal a shard this long after its first sample, even if the stream went quiet")
            .define(SAMPLES_RETENTION_MARGIN_MS, Type.LONG, 3_600_000L, Range.atLeast(0), Importance.LOW,
                    "checked at start: the samples topic's retention.ms must be at least shard.max.age.ms plus this (shard-sink"
                            + " reads a shard's samples from the topic after it seals, and may lag), and it must have no"
                            + " retention.bytes")
            .define(DEDUPE_WINDOW_MS, Type.LONG, 3_600_000L, Range.atLeast(1), Importance.MEDIUM,
                    "a (deviceId, sampleId) pair seen again within this window of broker time is a duplicate")
            .define(QUEUE_SEQUENCE_HORIZON_MS, Type.LONG, DEFAULT_QUEUE_SEQUENCE_HORIZON_MS, Range.atLeast(3_600_000L), Importance.MEDIUM,
                    "a device queue's highest seq (headers shardflow.queue/shardflow.seq) is forgotten once nothing of that queue"
                            + " arrived in a partition for this long (broker time). Keep it above the edge SDKs' resend_horizon"
                            + " (7 days by default) by more than the devices' clock error: a queue never resends an entry queued"
                            + " longer ago than that (docs/EDGE-QUEUE.md)")
            .define(SEAL_TICK_MS, Type.LONG, 1_000L, Range.between(10, 60_000), Importance.LOW,
                    "how often open shards are checked for age")
            .define(SAMPLE_MAX_BYTES, Type.LONG, DEFAULT_SAMPLE_MAX_BYTES, Range.atLeast(1), Importance.MEDIUM,
                    "largest sample accepted, as encoded on the topic and as tensor payload; larger ones are dead-lettered as"
                            + " OVERSIZE_SAMPLE. Keep it below the samples topic's max.message.bytes")
            .define(DLQ_MAX_BYTES, Type.LONG, DEFAULT_DLQ_MAX_BYTES, Range.atLeast(4096), Importance.MEDIUM,
                    "largest dead letter written; at most the dead-letter topic's max.message.bytes. A dead letter that would"
                            + " be larger is written without the original value (header shardflow.dlq.dropped)")
            .define(ID_MAX_CHARS, Type.INT, SampleLimits.DEFAULT_MAX_ID_CHARS, Range.between(1, 65_535), Importance.LOW,
                    "longest sampleId or deviceId; longer ones are dead-lettered as ID_TOO_LONG")
            .define(ATTRIBUTES_MAX_COUNT, Type.INT, SampleLimits.DEFAULT_MAX_ATTRIBUTES, Range.between(0, 10_000), Importance.LOW,
                    "most attributes per sample; more are dead-lettered as TOO_MANY_ATTRIBUTES")
            .define(ATTRIBUTE_KEY_MAX_CHARS, Type.INT, SampleLimits.DEFAULT_MAX_ATTRIBUTE_KEY_CHARS, Range.between(1, 65_535),
                    Importance.LOW, "longest attribute key; longer ones are dead-lettered as ATTRIBUTE_KEY_TOO_LONG")
            .define(ATTRIBUTE_VALUE_MAX_CHARS, Type.INT, SampleLimits.DEFAULT_MAX_ATTRIBUTE_VALUE_CHARS, Range.between(0, 1 << 20),
                    Importance.LOW, "longest attribute value; longer ones are dead-lettered as ATTRIBUTE_VALUE_TOO_LONG")
            .define(STATE_DIR, Type.STRING, System.getProperty("java.io.tmpdir") + "/shardflow-ingest", Importance.MEDIUM,
                    "Kafka Streams state directory")
            .define(SPEC_MISS_CACHE_MS, Type.LONG, 10_000L, Range.atLeast(0), Importance.LOW,
                    "how long an unknown dataset version is remembered as unknown before the catalog is asked again")
            .define(SPEC_CACHE_MAX_ENTRIES, Type.LONG, 10_000L, Range.atLeast(1), Importance.LOW,
                    "most dataset versions (known and unknown) remembered by the spec cache")
            .define(METRICS_PORT, Type.INT, -1, Range.atLeast(-1), Importance.LOW,
                    "port of the /metrics, /health and /ready endpoint (on metrics.host); -1 disables it, 0 picks a free port");

    static {
        S3Config.define(DEFINITION);
        KafkaClientConfig.define(DEFINITION);
        RegistryConfig.define(DEFINITION);
        ServiceConfig.define(DEFINITION);
    }

    /** How often the stream thread commits its transaction (see {@link #streamsProperties}). */
    static final int COMMIT_INTERVAL_MS = 1000;
    /** How long the Streams producer waits to fill a batch (see {@link #streamsProperties}). */
    static final int PRODUCER_LINGER_MS = 100;

    public IngestConfig(Map<?, ?> settings) {
        super(DEFINITION, settings);
    }

    /** How long the samples topic must keep records: an open shard's age limit plus the sink's allowed lag. */
    public Duration samplesRetentionNeeded() {
        return Duration.ofMillis(getLong(SHARD_MAX_AGE_MS) + getLong(SAMPLES_RETENTION_MARGIN_MS));
    }

    public SealLimits sealLimits() {
        return new SealLimits(getInt(SHARD_MAX_SAMPLES), getLong(SHARD_MAX_BYTES), Duration.ofMillis(getLong(SHARD_MAX_AGE_MS)));
    }

    public SampleLimits sampleLimits() {
        return new SampleLimits(getInt(ID_MAX_CHARS), getInt(ATTRIBUTES_MAX_COUNT), getInt(ATTRIBUTE_KEY_MAX_CHARS),
                getInt(ATTRIBUTE_VALUE_MAX_CHARS), getLong(SAMPLE_MAX_BYTES));
    }

    public IngestTopology.Topics topics() {
        return new IngestTopology.Topics(getString(TOPIC_SAMPLES), getString(TOPIC_ASSIGNMENTS), getString(TOPIC_DLQ));
    }

    public Duration dedupeWindow() {
        return Duration.ofMillis(getLong(DEDUPE_WINDOW_MS));
    }

    public Duration queueSequenceHorizon() {
        return Duration.ofMillis(getLong(QUEUE_SEQUENCE_HORIZON_MS));
    }

    public Duration sealTick() {
        return Duration.ofMillis(getLong(SEAL_TICK_MS));
    }

    public S3Settings s3() {
        return S3Config.settings(this);
    }

    /** Security and {@code kafka.*} settings for every Kafka client of the process (see {@link KafkaClientConfig}). */
    public Map<String, Object> kafkaClientSettings() {
        return KafkaClientConfig.clientSettings(this);
    }

    public String bootstrapServers() {
        return String.join(",", getList(BOOTSTRAP_SERVERS));
    }

    /**
     * Kafka Streams properties: exactly-once v2 always, our settings, then the client properties
     * file and any {@code kafka.*} overrides.
     */
    public Properties streamsProperties() {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, getString(APPLICATION_ID));
        props.put(StreamsConfig.STATE_DIR_CONFIG, getString(STATE_DIR));
        // Each commit is a transaction commit the stream thread waits for; at the 100 ms EOS default
        // the thread spent much of its time parked there (bench: 0.16 of raw Kafka at 200 ms, 0.29 at
        // 1 s). A second of extra latency is nothing next to a shard's seal age.
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL_MS);
        // The producer carries small records (an assignment or a dedupe changelog entry per sample, tens
        // of bytes) at the sample rate: large batches send them in few requests.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 1 << 20);
        // Kafka Streams' own default (100 ms) rather than the client's: each new batch wakes the sender
        // thread, and at 10 ms the wake-ups behind the dedupe changelog's sends alone were 5 % of
        // ingest CPU (bench profile). It adds no latency anyone sees: readers are read_committed and
        // see nothing before the transaction commits (COMMIT_INTERVAL_MS, 10 times longer), which
        // flushes the producer first.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), PRODUCER_LINGER_MS);
        // The main consumer reads the samples themselves, megabytes a second: the OS's autotuned socket
        // buffer instead of Kafka's 64 KiB, so a fetch is read in a few large reads, as shard-sink's
        // sample readers do (docs/performance.md, "Steady state").
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.RECEIVE_BUFFER_CONFIG), -1);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), (int) Math.min(Integer.MAX_VALUE,
                Math.max(8L << 20, 2 * getLong(SAMPLE_MAX_BYTES))));
        props.putAll(kafkaClientSettings());
        // Not overridable: the shard sequence and the seal markers are only correct under EOS.
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return props;
    }
}
