package io.shardflow.chaos;

import io.shardflow.chaos.sink.FaultInjectingSinkApp;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.sink.config.SinkConfig;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.WorkDirs;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * One chaos run, end to end: a local stack (broker, registry, S3 server as processes), two
 * ingest-app and two shard-sink JVMs, a publisher that records every acknowledged sample id, the
 * fault scheduler and the watchdog; then the drain (every acknowledged sample committed, or a
 * timeout) and the check from object storage alone. Used by {@code shardflow chaos} and by the
 * JUnit chaos test.
 */
public final class ChaosRun {

    static final String DATASET = "chaos";
    static final String VERSION = "v1";
    private static final List<String> SERVICE_JVM = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    private static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration QUIET_BEFORE_CHECK = Duration.ofSeconds(6);

    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(1);

    private final ChaosOptions options;
    private final PrintWriter out;
    private final ChaosProgress progress;

    private ChaosRun(ChaosOptions options, PrintWriter out, ChaosProgress progress) {
        this.options = options;
        this.out = out;
        this.progress = progress;
    }

    /** Runs the whole thing and returns the report (also printed to {@code out}). */
    public static ChaosReport run(ChaosOptions options, PrintWriter out) throws Exception {
        return run(options, out, ChaosProgress.NONE);
    }

    /** As {@link #run(ChaosOptions, PrintWriter)}, reporting acknowledged, then committed, samples to {@code progress}. */
    public static ChaosReport run(ChaosOptions options, PrintWriter out, ChaosProgress progress) throws Exception {
        return new ChaosRun(options, out, progress).run();
    }

    private ChaosReport run() throws Exception {
        long started = System.nanoTime();
        quietKafkaClients();
        WorkDirs.wipe(options.workDir());
        ChaosJournal journal = new ChaosJournal(out);
        say("chaos: %d samples over ~%d s; faults: %d ingest kills, %d sink kills, %d zombies, %d S3 outages of %d s, "
                        + "%d broker restarts; sink crash points [%s], freeze points [%s]; work dir %s",
                options.samples(), options.publishSpan().toSeconds(), options.ingestKills(), options.sinkKills(),
                options.zombies(), options.s3Outages(), options.s3OutageLength().toSeconds(), options.brokerRestarts(),
                options.crashPoints(), options.freezePoints(), options.workDir());
        StackConfig stackConfig = StackConfig.defaults(options.workDir().resolve("stack")).withS3Kind(options.s3Kind());
        try (LocalStack stack = LocalStack.start(stackConfig)) {
            StackEndpoints endpoints = StackEndpoints.of(stack);
            S3ObjectStore store = S3ObjectStore.connect(endpoints.s3Settings());
            new DatasetCatalog(store).create(new DatasetSpec(DATASET, VERSION,
                    List.of(TensorSpec.parse("image:float32:3x8x8"), TensorSpec.parse("label:int64")), "label", "chaos",
                    "chaos harness: synthetic 3x8x8 images", 0, false, Instant.now()));
            SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, "chaos-cam", 3, 8, 10, options.seed());
            say("stack up: kafka %s, registry %s, s3 %s", endpoints.bootstrapServers(), endpoints.registryUrl(),
                    endpoints.s3Endpoint());

            Duration freezeLength = options.sessionTimeout().plusSeconds(5);
            List<String> extraViolations = new ArrayList<>();
            long spoolFilesLeft;
            ChaosPublisher publisher;
            try (ChaosCluster cluster = new ChaosCluster(stack, services(endpoints), journal, freezeLength)) {
                cluster.start();
                publisher = new ChaosPublisher(EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(),
                        "samples", producerOverrides()), synthetic, options.samples(), options.samplesPerSecond());
                try {
                    CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
                    publisher.start();
                    progress.stage("chaos publish", "samples", options.samples());
                    ScheduledExecutorService reporter = reportAcknowledged(publisher);
                    awaitFirstSnapshot(log);
                    journal.event("pipeline warm (first snapshot committed); faults start");
                    ChaosFaults faults = new ChaosFaults(cluster, journal, options);
                    faults.start(options.publishSpan());
                    if (!publisher.awaitAcknowledged(options.publishSpan().plus(options.drainTimeout()).plusMinutes(5))) {
                        extraViolations.add("the broker did not acknowledge every sample in time: "
                                + publisher.acknowledgedCount() + " of " + options.samples());
                    }
                    reporter.shutdownNow();
                    progress.reached(publisher.acknowledgedCount());
                    journal.event("publishing done: " + publisher.acknowledgedCount() + " samples acknowledged");
                    faults.awaitDone(options.publishSpan().plusMinutes(10));
                    faults.stop();
                    journal.event("faults done; draining");
                    progress.stage("chaos drain", "samples", publisher.acknowledgedCount());
                    drain(log, publisher.acknowledgedCount(), journal);
                    progress.finished();
                    spoolFilesLeft = awaitEmptySpools(cluster);
                } finally {
                    publisher.close();
                }
            }
            journal.event("services stopped; checking object storage");
            Path scratch = Files.createDirectories(options.workDir().resolve("check"));
            ChaosChecker.Result check = new ChaosChecker(store, DATASET, VERSION, scratch, synthetic)
                    .check(publisher.acknowledged(), publisher.unacknowledged());
            ChaosReport report = new ChaosReport(options, Duration.ofNanos(System.nanoTime() - started), publisher.published(),
                    publisher.acknowledgedCount(), publisher.sends(), publisher.failures(), journal, check, spoolFilesLeft,
                    extraViolations);
            report.print(out);
            return report;
        }
    }

    private List<ChaosService> services(StackEndpoints endpoints) {
        List<ChaosService> services = new ArrayList<>();
        String session = Long.toString(options.sessionTimeout().toMillis());
        String heartbeat = Long.toString(Math.max(500, options.sessionTimeout().toMillis() / 4));
        for (int i = 1; i <= 2; i++) {
            Path dir = options.workDir().resolve("ingest-" + i);
            Map<String, String> ingest = new LinkedHashMap<>(PipelineSettings.ingest(endpoints, options.shardSamples(),
                    64L << 20, Duration.ofSeconds(2), dir.resolve("state")));
            ingest.put(IngestConfig.APPLICATION_ID, "shardflow-chaos-ingest");
            ingest.put(PipelineSettings.kafka(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), session);
            ingest.put(PipelineSettings.kafka(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), heartbeat);
            services.add(new ChaosService("ingest-" + i, ChaosService.Stage.INGEST, IngestApp.class.getName(), ingest,
                    dir, SERVICE_JVM, List.of()));
        }
        List<String> faults = FaultInjectingSinkApp.arguments(options.crashPoints(), options.freezePoints());
        for (int i = 1; i <= 2; i++) {
            Path dir = options.workDir().resolve("sink-" + i);
            Map<String, String> sink = new LinkedHashMap<>(PipelineSettings.sink(endpoints, dir.resolve("spool"), "sink-" + i));
            sink.put(SinkConfig.GROUP_ID, "shardflow-chaos-sink");
            sink.put(PipelineSettings.kafka(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), session);
            sink.put(PipelineSettings.kafka(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), heartbeat);
            sink.put(SinkConfig.RETRY_ATTEMPTS, "4");
            sink.put(SinkConfig.RETRY_BACKOFF_MS, "200");
            sink.put(SinkConfig.BACKPRESSURE_BACKOFF_MS, "500");
            sink.put(SinkConfig.BACKPRESSURE_MAX_BACKOFF_MS, "5000");
            services.add(new ChaosService("sink-" + i, ChaosService.Stage.SINK, FaultInjectingSinkApp.class.getName(), sink,
                    dir, SERVICE_JVM, faults));
        }
        return services;
    }

    private static Map<String, Object> producerOverrides() {
        return Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000, ProducerConfig.LINGER_MS_CONFIG, 20);
    }

    /** Polls the publisher's acknowledged count, so that progress moves while the faults run. */
    private ScheduledExecutorService reportAcknowledged(ChaosPublisher publisher) {
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "chaos-progress");
            thread.setDaemon(true);
            return thread;
        });
        reporter.scheduleAtFixedRate(() -> progress.reached(publisher.acknowledgedCount()), PROGRESS_EVERY.toMillis(),
                PROGRESS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return reporter;
    }

    private void awaitFirstSnapshot(CommitLog log) throws InterruptedException {
        long deadline = System.nanoTime() + WARM_UP_TIMEOUT.toNanos();
        while (log.latest().snapshotId() == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no snapshot within " + WARM_UP_TIMEOUT.toSeconds()
                        + " s of starting the pipeline; see the service logs under " + options.workDir());
            }
            Thread.sleep(500);
        }
    }

    /** Waits until the log holds every acknowledged sample and stops growing, or the drain timeout. */
    private void drain(CommitLog log, long expected, ChaosJournal journal) throws InterruptedException {
        long deadline = System.nanoTime() + options.drainTimeout().toNanos();
        long last = -1;
        long lastChange = System.nanoTime();
        while (true) {
            long committed;
            try {
                committed = log.latest().sampleCount();
            } catch (RuntimeException e) {
                committed = last;
            }
            if (committed != last) {
                last = committed;
                progress.reached(committed);
                lastChange = System.nanoTime();
            }
            if (committed >= expected && System.nanoTime() - lastChange > QUIET_BEFORE_CHECK.toNanos()) {
                journal.event("drained: " + committed + " samples in the log");
                return;
            }
            if (System.nanoTime() > deadline) {
                journal.event("drain timeout after " + options.drainTimeout().toSeconds() + " s: " + committed + " of "
                        + expected + " samples in the log");
                return;
            }
            Thread.sleep(1_000);
        }
    }

    /** Every shard is committed, so the sinks' spool and work directories should empty; waits a little. */
    private static long awaitEmptySpools(ChaosCluster cluster) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        long files = cluster.sinkSpoolFiles();
        while (files > 0 && System.nanoTime() < deadline) {
            Thread.sleep(1_000);
            files = cluster.sinkSpoolFiles();
        }
        return files;
    }

    /**
     * The publisher's producer warns on every reconnect while the broker restarts, which would bury
     * the fault log; the services' own logs keep everything.
     */
    private static void quietKafkaClients() {
        try {
            Class.forName("org.apache.logging.log4j.core.config.Configurator")
                    .getMethod("setLevel", String.class, org.apache.logging.log4j.Level.class)
                    .invoke(null, "org.apache.kafka", org.apache.logging.log4j.Level.ERROR);
        } catch (ReflectiveOperationException | LinkageError e) {
            // another logging backend: the output is noisier, nothing else changes
        }
    }

    private void say(String format, Object... args) {
        out.printf(format + "%n", args);
        out.flush();
    }
}
