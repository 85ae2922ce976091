package io.shardflow.cli.bench;

import io.shardflow.ingest.IngestApp;
import io.shardflow.ingest.config.IngestConfig;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.sink.config.SinkConfig;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ingest-app and shard-sink instances of one case, each its own JVM on the case's topics and
 * groups, startable separately so a stage can be timed alone (P1a, P1b). Each serves its metrics
 * endpoint, whose {@code /ready} says when it has its partitions.
 */
public final class ServicePipeline implements AutoCloseable {

    /** Sink settings key of the samples topic for a sink that reads sample bytes from it; ignored by one that does not. */
    static final String SINK_SAMPLES_TOPIC = "topic.samples";

    /**
     * @param writer  {@code shard.writer}; null for the sink's default
     * @param sinkJvm heap and GC options of the sink JVMs
     */
    public record Shape(int instances, int shardMaxSamples, long shardMaxBytes, Duration shardMaxAge, String writer, List<String> sinkJvm,
                        double quotaCores) {

        public Shape(int instances, int shardMaxSamples, long shardMaxBytes, Duration shardMaxAge, String writer, List<String> sinkJvm) {
            this(instances, shardMaxSamples, shardMaxBytes, shardMaxAge, writer, sinkJvm, 0);
        }

        public static Shape throughput(int instances, int shardMaxSamples) {
            return new Shape(instances, shardMaxSamples, 64L << 20, Duration.ofSeconds(1), null, ServiceProcess.DEFAULT_JVM_OPTIONS);
        }

        /** Every service instance in its own cgroup allowed {@code cores} CPUs ({@link CpuQuota}). */
        public Shape withQuota(double cores) {
            return new Shape(instances, shardMaxSamples, shardMaxBytes, shardMaxAge, writer, sinkJvm, cores);
        }
    }

    /** CPU meter role of the ingest-app instances. */
    public static final String INGEST = "ingest-app";
    /** CPU meter role of the shard-sink instances. */
    public static final String SINK = "shard-sink";
    public static final List<String> SERVICES = List.of(INGEST, SINK);

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final BenchContext context;
    private final BenchCase benchCase;
    private final Shape shape;
    private final List<Service> ingests = new ArrayList<>();
    private final List<Service> sinks = new ArrayList<>();

    /** @param quota its cgroup, or null when it runs without a quota */
    private record Service(ServiceProcess process, int metricsPort, CpuQuota quota) {
    }

    public ServicePipeline(BenchContext context, BenchCase benchCase, Shape shape) {
        this.context = context;
        this.benchCase = benchCase;
        this.shape = shape;
    }

    /** Starts every instance of both services. */
    public ServicePipeline start() {
        startIngest();
        startSink();
        return this;
    }

    public void startIngest() {
        for (int i = 0; i < shape.instances(); i++) {
            int port = freePort();
            ingests.add(launch("ingest-app", IngestApp.class.getName(), ingestSettings(i, port), ingestDir(i), ServiceProcess.DEFAULT_JVM_OPTIONS,
                    port, "ingest-" + i));
        }
    }

    public void startSink() {
        for (int i = 0; i < shape.instances(); i++) {
            int port = freePort();
            sinks.add(launch("shard-sink", ShardSinkApp.class.getName(), sinkSettings(i, port), sinkDir(i), shape.sinkJvm(), port, "sink-" + i));
        }
    }

    Path ingestDir(int instance) {
        return context.caseDir(benchCase).resolve("ingest-" + instance);
    }

    Path sinkDir(int instance) {
        return context.caseDir(benchCase).resolve("sink-" + instance);
    }

    /** The settings of ingest-app instance {@code instance}, serving its metrics on {@code port}. */
    Map<String, String> ingestSettings(int instance, int port) {
        Map<String, String> settings = PipelineSettings.ingest(context.endpoints(), shape.shardMaxSamples(), shape.shardMaxBytes(),
                shape.shardMaxAge(), ingestDir(instance).resolve("state"));
        settings.put(IngestConfig.APPLICATION_ID, benchCase.ingestApplicationId());
        settings.put(IngestConfig.TOPIC_SAMPLES, benchCase.samplesTopic());
        settings.put(IngestConfig.TOPIC_ASSIGNMENTS, benchCase.assignmentsTopic());
        settings.put(IngestConfig.TOPIC_DLQ, benchCase.dlqTopic());
        settings.put(IngestConfig.METRICS_PORT, Integer.toString(port));
        return settings;
    }

    /** The settings of shard-sink instance {@code instance}, serving its metrics on {@code port}. */
    Map<String, String> sinkSettings(int instance, int port) {
        Map<String, String> settings = PipelineSettings.sink(context.endpoints(), sinkDir(instance).resolve("spool"),
                benchCase.name() + "-sink-" + instance);
        settings.put(SinkConfig.GROUP_ID, benchCase.sinkGroupId());
        settings.put(SinkConfig.TOPIC_ASSIGNMENTS, benchCase.assignmentsTopic());
        settings.put(SINK_SAMPLES_TOPIC, benchCase.samplesTopic());
        settings.put(SinkConfig.METRICS_PORT, Integer.toString(port));
        if (shape.writer() != null) {
            settings.put(SinkConfig.SHARD_WRITER, shape.writer());
        }
        return settings;
    }

    private Service launch(String name, String mainClass, Map<String, String> settings, Path dir, List<String> jvm, int port, String instance) {
        if (shape.quotaCores() <= 0) {
            return new Service(ServiceProcess.start(name, mainClass, settings, dir, jvm, List.of()), port, null);
        }
        CpuQuota quota = CpuQuota.create("shardflow-bench-" + ProcessHandle.current().pid() + "-" + benchCase.name() + "-" + instance,
                shape.quotaCores());
        try {
            return new Service(ServiceProcess.start(name, mainClass, settings, dir, jvm, quota.launcher(), System.getProperty("java.class.path")),
                    port, quota);
        } catch (RuntimeException e) {
            quota.close();
            throw e;
        }
    }

    /** Seconds the instances of a role ({@link #INGEST}, {@link #SINK}) were held back by their quotas so far; 0 without quotas. */
    public double throttledSeconds(String role) {
        return (role.equals(INGEST) ? ingests : sinks).stream().filter(service -> service.quota() != null)
                .mapToDouble(service -> service.quota().throttledSeconds()).sum();
    }

    /** Waits until every ingest-app instance has its Streams threads running (partitions assigned). */
    public void awaitIngestReady(Duration timeout) throws InterruptedException {
        awaitReady(ingests, timeout);
    }

    /**
     * Waits until the first sink instance owns partitions; with more instances than partitions the
     * others may rightly stay unready, so only the first is waited for.
     */
    public void awaitSinkReady(Duration timeout) throws InterruptedException {
        awaitReady(sinks.subList(0, 1), timeout);
    }

    /** Waits until every sink instance owns partitions: for as many instances as partitions or fewer. */
    public void awaitAllSinksReady(Duration timeout) throws InterruptedException {
        awaitReady(sinks, timeout);
    }

    private void awaitReady(List<Service> services, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Service service : services) {
            while (!ready(service.metricsPort())) {
                service.process().requireAlive();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(service.process().name() + " not ready within " + timeout.toSeconds() + " s; see "
                            + service.process().log());
                }
                Thread.sleep(50);
            }
        }
    }

    static boolean ready(int port) throws InterruptedException {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready")).timeout(Duration.ofSeconds(2)).build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** Fails with the end of its log if any started instance has exited. */
    public void requireAlive() {
        ingests.forEach(service -> service.process().requireAlive());
        sinks.forEach(service -> service.process().requireAlive());
    }

    /** The context's CPU meter (stack servers, this JVM) with this pipeline's instances as {@link #INGEST} and {@link #SINK}. */
    public CpuMeter cpuMeter() {
        return context.cpuMeter().role(INGEST, () -> pids(ingests)).role(SINK, () -> pids(sinks));
    }

    private static List<Long> pids(List<Service> services) {
        return services.stream().map(service -> service.process().pid()).toList();
    }

    public ServiceProcess ingest(int instance) {
        return ingests.get(instance).process();
    }

    public ServiceProcess sink(int instance) {
        return sinks.get(instance).process();
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port for a metrics endpoint", e);
        }
    }

    @Override
    public void close() {
        sinks.forEach(service -> service.process().close());
        ingests.forEach(service -> service.process().close());
        for (Service service : concat()) {
            if (service.quota() != null) {
                service.quota().close();
            }
        }
    }

    private List<Service> concat() {
        List<Service> all = new ArrayList<>(ingests);
        all.addAll(sinks);
        return all;
    }
}
