package io.shardflow.ingest;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.app.ConfigFiles;
import io.shardflow.app.FatalErrors;
import io.shardflow.app.MetricsEndpoint;
import io.shardflow.app.RegistryConfig;
import io.shardflow.app.S3Config;
import io.shardflow.app.SampleDeserializers;
import io.shardflow.app.ServiceConfig;
import io.shardflow.app.ServiceMain;
import io.shardflow.app.StartupChecks;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.app.spec.CatalogSpecSource;
import io.shardflow.ingest.topology.IngestMetrics;
import io.shardflow.ingest.topology.IngestTopology;
import io.shardflow.ingest.topology.Outages;
import io.shardflow.ingest.validate.SampleDecoder;
import io.shardflow.app.validate.SampleValidator;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The ingest-app process: {@code IngestApp [config.properties]}, settings also from SHARDFLOW_* env. */
public final class IngestApp implements ServiceMain.RunningService {

    private static final Logger LOG = LoggerFactory.getLogger(IngestApp.class);

    private final KafkaStreams streams;
    private final MetricsEndpoint metricsEndpoint;
    private KafkaStreamsMetrics kafkaMeters;
    private final Duration shutdownTimeout;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile int exitCode;

    private IngestApp(KafkaStreams streams, MetricsEndpoint metricsEndpoint, Duration shutdownTimeout) {
        this.streams = streams;
        this.metricsEndpoint = metricsEndpoint;
        this.shutdownTimeout = shutdownTimeout;
    }

    public static void main(String[] args) {
        if (ServiceMain.printVersion("ingest-app", IngestApp.class, args)) {
            return;
        }
        Path file = args.length > 0 ? Path.of(args[0]) : null;
        FatalErrors.halting("ingest-app").installAsDefault();
        System.exit(ServiceMain.run("ingest-app", () -> start(ConfigFiles.load(file, System.getenv(), Map.of()))));
    }

    /** Validates the config, checks every dependency is reachable, then starts the streams app. */
    public static IngestApp start(Map<String, Object> settings) {
        IngestConfig config = new IngestConfig(settings);
        StartupChecks checks = new StartupChecks(Duration.ofSeconds(10));
        ObjectStore store = S3ObjectStore.connect(config.s3());
        checks.objectStore(store, config.s3().endpoint(), S3Config.ENDPOINT, S3Config.BUCKET);
        checks.kafka(config.bootstrapServers(), config.kafkaClientSettings(), IngestConfig.BOOTSTRAP_SERVERS);
        checks.topicRetention(config.bootstrapServers(), config.kafkaClientSettings(), config.topics().samples(),
                config.samplesRetentionNeeded(), IngestConfig.TOPIC_SAMPLES,
                "shard-sink reads a shard's samples from it after the shard seals (" + IngestConfig.SHARD_MAX_AGE_MS + " + "
                        + IngestConfig.SAMPLES_RETENTION_MARGIN_MS + ")");
        String registryUrl = config.getString(IngestConfig.REGISTRY_URL);
        checks.registry(registryUrl, config, IngestConfig.REGISTRY_URL);
        Map<String, Object> serdeSettings = RegistryConfig.serdeSettings(config, registryUrl);

        MetricsEndpoint endpoint = ServiceConfig.startEndpoint(config, config.getInt(IngestConfig.METRICS_PORT));
        MeterRegistry meters = endpoint != null ? endpoint.registry() : new SimpleMeterRegistry();

        SampleValidator validator = new SampleValidator(
                new CatalogSpecSource(new DatasetCatalog(store), Clock.systemUTC(),
                        Duration.ofMillis(config.getLong(IngestConfig.SPEC_MISS_CACHE_MS)), config.getLong(IngestConfig.SPEC_CACHE_MAX_ENTRIES)),
                config.sampleLimits());
        IngestTopology.Settings topologySettings = new IngestTopology.Settings(config.topics(), config.sealLimits(),
                config.dedupeWindow(), config.sealTick(), config.getLong(IngestConfig.SAMPLE_MAX_BYTES),
                config.getLong(IngestConfig.DLQ_MAX_BYTES), config.queueSequenceHorizon());
        var topology = IngestTopology.build(topologySettings, () -> new SampleDecoder(SampleDeserializers.forRegistry(serdeSettings)), validator,
                new IngestMetrics(meters));

        KafkaStreams streams = new KafkaStreams(topology, config.streamsProperties());
        IngestApp app = new IngestApp(streams, endpoint, ServiceConfig.shutdownTimeout(config));
        if (endpoint != null) {
            // Ready once every stream thread has its tasks and is processing, not merely connected.
            endpoint.readiness(() -> streams.state() == KafkaStreams.State.RUNNING);
            // The Kafka clients' own meters, among them the consumer's lag per partition of the
            // samples topic: the lag of each lane (docs/ARCHITECTURE.md § 9).
            app.kafkaMeters = new KafkaStreamsMetrics(streams);
            app.kafkaMeters.bindTo(meters);
        }
        FatalErrors fatal = FatalErrors.halting("ingest-app");
        streams.setUncaughtExceptionHandler(failure -> app.onStreamFailure(failure, fatal));
        streams.setStateListener((now, before) -> {
            LOG.info("ingest-app state {} -> {}", before, now);
            if (now == KafkaStreams.State.NOT_RUNNING || now == KafkaStreams.State.ERROR) {
                app.stopped.countDown();
            }
        });
        streams.start();
        LOG.info("ingest-app started: {} -> {} (dlq {}), seal policy {}", config.topics().samples(),
                config.topics().assignments(), config.topics().deadLetters(), config.sealLimits());
        return app;
    }

    /**
     * A dependency outage (registry, object store, broker) fails the task; the thread is replaced and
     * resumes from the last committed transaction, so nothing is lost or doubled. A JVM error halts
     * the process with a non-zero status. Anything else is a bug and stops the client rather than
     * spinning; bad records never get here, they are dead-lettered by the processor.
     */
    StreamThreadExceptionResponse onStreamFailure(Throwable failure, FatalErrors fatal) {
        if (fatal.haltIfFatal(Thread.currentThread(), failure)) {
            exitCode = FatalErrors.EXIT_CODE;
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        if (Outages.isDependencyOutage(failure)) {
            LOG.warn("dependency unavailable, replacing stream thread: {}", failure.getMessage());
            sleepQuietly(Duration.ofSeconds(1));
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        LOG.error("ingest-app failed", failure);
        exitCode = 1;
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public KafkaStreams streams() {
        return streams;
    }

    @Override
    public int awaitTermination() throws InterruptedException {
        stopped.await();
        return exitCode;
    }

    /**
     * Closes Kafka Streams within the shutdown timeout: the open transaction is committed or aborted
     * and the instance leaves its group, so its tasks move at once. A close that runs out of time
     * exits 1; nothing is lost either way, the next owner resumes from the last committed transaction.
     */
    @Override
    public void close() {
        long started = System.nanoTime();
        // Leaving the group hands the tasks over now instead of after the session timeout.
        if (streams.close(CloseOptions.timeout(shutdownTimeout)
                .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP))) {
            LOG.info("ingest-app stopped in {} ms", Duration.ofNanos(System.nanoTime() - started).toMillis());
        } else {
            LOG.warn("ingest-app did not stop within {} ms; exiting anyway", shutdownTimeout.toMillis());
            exitCode = 1;
        }
        if (kafkaMeters != null) {
            kafkaMeters.close();
        }
        if (metricsEndpoint != null) {
            metricsEndpoint.close();
        }
        stopped.countDown();
    }
}
