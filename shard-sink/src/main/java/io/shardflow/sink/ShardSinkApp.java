package io.shardflow.sink;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardflow.app.ConfigFiles;
import io.shardflow.app.FatalErrors;
import io.shardflow.app.MetricsEndpoint;
import io.shardflow.app.S3Config;
import io.shardflow.app.SampleDeserializers;
import io.shardflow.app.ServiceConfig;
import io.shardflow.app.ServiceMain;
import io.shardflow.app.StartupChecks;
import io.shardflow.dataset.retry.Retrier;
import io.shardflow.dataset.retry.Sleeper;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.sink.commit.ShardCommitter;
import io.shardflow.sink.compaction.BackgroundCompaction;
import io.shardflow.sink.config.SinkConfig;
import io.shardflow.sink.quarantine.ShardQuarantine;
import io.shardflow.sink.flow.Backpressure;
import io.shardflow.sink.source.KafkaSampleSource;
import io.shardflow.sink.spool.SpoolDirectory;
import io.shardflow.sink.write.MemoryBudget;
import io.shardflow.sink.write.ShardBuilder;
import io.shardflow.sink.write.ShardUploader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The shard-sink process: {@code ShardSinkApp [config.properties]}, settings also from SHARDFLOW_* env. */
public final class ShardSinkApp implements ServiceMain.RunningService {

    private static final Logger LOG = LoggerFactory.getLogger(ShardSinkApp.class);
    /**
     * A round's shards per build thread: enough that a thread uploads one shard while another builds the
     * next, few enough that a backlog is committed a few shards at a time (BackgroundFinisher).
     */
    static final int SHARDS_PER_ROUND_PER_THREAD = 4;


    private final SinkWorker worker;
    private final Thread thread;
    private final MetricsEndpoint metricsEndpoint;
    private KafkaClientMetrics kafkaMeters;
    private final Duration shutdownTimeout;
    private final AtomicInteger exitCode = new AtomicInteger();
    /** Counted down when the worker ends, or when a stop gives up waiting for it. */
    private final CountDownLatch finished = new CountDownLatch(1);

    /** The samples-topic readers: closed once the worker has stopped. */
    private final AutoCloseable samples;
    /** Background compaction's rounds (nothing when compaction.enabled is false): stopped first on close. */
    private volatile AutoCloseable compaction = () -> { };

    private ShardSinkApp(SinkWorker worker, AutoCloseable samples, MetricsEndpoint metricsEndpoint, Duration shutdownTimeout) {
        this.worker = worker;
        this.samples = samples;
        this.metricsEndpoint = metricsEndpoint;
        this.shutdownTimeout = shutdownTimeout;
        this.thread = new Thread(this::runWorker, "shard-sink-worker");
        // Also when started without main (the CLI's run sink, tests): a JVM error ends the process non-zero.
        this.thread.setUncaughtExceptionHandler(FatalErrors.halting("shard-sink"));
    }

    public static void main(String[] args) {
        if (ServiceMain.printVersion("shard-sink", ShardSinkApp.class, args)) {
            return;
        }
        Path file = args.length > 0 ? Path.of(args[0]) : null;
        FatalErrors.halting("shard-sink").installAsDefault();
        System.exit(ServiceMain.run("shard-sink", () -> start(ConfigFiles.load(file, System.getenv(), Map.of()))));
    }

    public static ShardSinkApp start(Map<String, Object> settings) {
        return start(settings, SinkHook.NONE);
    }

    /** The sink with a {@link SinkHook} installed: for test harnesses that build their own sink process. */
    public static ShardSinkApp start(Map<String, Object> settings, SinkHook hook) {
        SinkConfig config = new SinkConfig(settings);
        StartupChecks checks = new StartupChecks(Duration.ofSeconds(10));
        ObjectStore store = S3ObjectStore.connect(config.s3());
        checks.objectStore(store, config.s3().endpoint(), S3Config.ENDPOINT, S3Config.BUCKET);
        checks.kafka(config.bootstrapServers(), config.kafkaClientSettings(), SinkConfig.BOOTSTRAP_SERVERS);
        checks.registry(config.getString(SinkConfig.REGISTRY_URL), config, SinkConfig.REGISTRY_URL);

        MetricsEndpoint endpoint = ServiceConfig.startEndpoint(config, config.getInt(SinkConfig.METRICS_PORT));
        MeterRegistry meters = endpoint != null ? endpoint.registry() : new SimpleMeterRegistry();

        SpoolDirectory spools = SpoolDirectory.open(config.spoolDir().resolve("spool"));
        Path workDir = prepare(config.spoolDir().resolve("work"));
        SinkMetrics metrics = SinkMeters.register(meters).sink;
        Retrier retrier = new Retrier(config.getInt(SinkConfig.RETRY_ATTEMPTS),
                Duration.ofMillis(config.getLong(SinkConfig.RETRY_BACKOFF_MS)), Duration.ofSeconds(10), Sleeper.SYSTEM,
                failure -> metrics.storeErrors.increment());
        Backpressure backpressure = config.backpressure();
        ShardCommitter committer = new ShardCommitter(store, Clock.systemUTC(), retrier, config.getString(SinkConfig.COMMITTER_ID));
        int buildThreads = config.getInt(SinkConfig.BUILD_THREADS);
        List<KafkaConsumer<byte[], byte[]>> readers = new ArrayList<>();
        for (int i = 0; i < buildThreads; i++) {
            readers.add(new KafkaConsumer<>(config.sampleReaderProperties(i)));
        }
        Map<String, Object> serdeSettings = config.serdeSettings();
        KafkaSampleSource samples = new KafkaSampleSource(config.getString(SinkConfig.TOPIC_SAMPLES), readers,
                () -> SampleDeserializers.forRegistry(serdeSettings),
                Duration.ofMillis(config.getLong(SinkConfig.SOURCE_READ_TIMEOUT_MS)), System::nanoTime);
        MemoryBudget buildMemory = new MemoryBudget(config.getLong(SinkConfig.BUILD_MEMORY_BUDGET_BYTES), metrics.buildMemoryBytes::set);
        ShardFinisher finisher = new ShardFinisher(new ShardBuilder(config.shardWriter(), workDir, samples, buildMemory),
                new ShardUploader(hook.uploadStore(store), retrier, workDir), committer, hook,
                new ShardQuarantine(store, retrier, Clock.systemUTC(), config.getString(SinkConfig.COMMITTER_ID), meters),
                Executors.newFixedThreadPool(buildThreads, daemon("shard-sink-build")), buildThreads);
        KafkaConsumer<byte[], byte[]> assignments = new KafkaConsumer<>(config.consumerProperties());
        SinkWorker worker = new SinkWorker(assignments,
                config.getString(SinkConfig.TOPIC_ASSIGNMENTS), config.pollTimeout(), spools,
                new BackgroundFinisher(finisher, Executors.newSingleThreadExecutor(daemon("shard-sink-commit")),
                        SHARDS_PER_ROUND_PER_THREAD * buildThreads),
                new ReplayCheck(committer::isCommitted, backpressure::inOutage, System::nanoTime), backpressure,
                metrics, hook);
        ShardSinkApp app = new ShardSinkApp(worker, samples, endpoint, ServiceConfig.shutdownTimeout(config));
        if (endpoint != null) {
            endpoint.readiness(worker::isReady);
            // The consumer's own meters, among them its lag per partition of shard-assignments: the
            // lag of each lane (docs/ARCHITECTURE.md § 9). The sample readers seek by offset; their lag means nothing.
            app.kafkaMeters = new KafkaClientMetrics(assignments);
            app.kafkaMeters.bindTo(meters);
        }
        app.thread.start();
        app.compaction = BackgroundCompaction.startIfEnabled(config.compaction(), store, committer, config.shardWriter(),
                config.spoolDir().resolve("compaction"), config.getString(SinkConfig.COMMITTER_ID), meters);
        LOG.info("shard-sink started: {} -> {} ({}), spool {}", config.getString(SinkConfig.TOPIC_ASSIGNMENTS),
                config.s3().endpoint(), config.s3().bucket(), config.spoolDir());
        return app;
    }

    /** Threads of the sink's executors: daemons (a stop abandons their work safely), and a JVM error ends the process. */
    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler(FatalErrors.halting("shard-sink"));
            return thread;
        };
    }

    private static Path prepare(Path dir) {
        try {
            Files.createDirectories(dir);
            try (var stale = Files.list(dir)) {
                for (Path p : stale.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare work directory " + dir, e);
        }
    }

    private void runWorker() {
        try {
            worker.run();
        } catch (Error e) {
            // Halted here, with status 3: the thread's handler would run only after the finally below has let
            // main exit 0, and an out-of-memory sink must never look like a clean stop.
            FatalErrors.halting("shard-sink").haltIfFatal(Thread.currentThread(), e);
            throw e;
        } catch (RuntimeException e) {
            // An Error in a build thread arrives wrapped by its executor: the same halt.
            FatalErrors.halting("shard-sink").haltIfFatal(Thread.currentThread(), e);
            // Offsets only ever moved past durable commits, so a restart resumes safely from them.
            LOG.error("shard-sink stopped on an error; restart it to resume from the last committed offsets", e);
            exitCode.set(1);
        } finally {
            closeQuietly(samples);
            finished.countDown();
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            LOG.warn("cannot close {}: {}", resource, e.toString());
        }
    }

    @Override
    public int awaitTermination() throws InterruptedException {
        finished.await();
        return exitCode.get();
    }

    /**
     * Stops polling; an upload and commit in flight finishes, then the offsets of what is in the log
     * are committed and the consumer leaves its group. If that takes longer than the shutdown
     * timeout the work is abandoned: its offsets were never committed, so the next owner redoes it
     * and the commit protocol recognises whatever had already reached the log.
     */
    @Override
    public void close() {
        long started = System.nanoTime();
        closeQuietly(compaction);
        worker.stop();
        try {
            if (finished.await(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.info("shard-sink stopped in {} ms", Duration.ofNanos(System.nanoTime() - started).toMillis());
            } else {
                LOG.warn("shard-sink did not stop within {} ms; abandoning in-flight work (its offsets are not committed)",
                        shutdownTimeout.toMillis());
                exitCode.set(1);
                finished.countDown();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (kafkaMeters != null) {
            kafkaMeters.close();
        }
        if (metricsEndpoint != null) {
            metricsEndpoint.close();
        }
    }
}
