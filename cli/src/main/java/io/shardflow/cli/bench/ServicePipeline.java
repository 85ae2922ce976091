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
import java.util.HashMap;
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
    public record Shape(int instances, int shardMaxSamples, long shardMaxBytes, Duration shardMaxAge, String writer, List<String> sinkJvm) {

        public static Shape throughput(int instances, int shardMaxSamples) {
            return new Shape(instances, shardMaxSamples, 64L << 20, Duration.ofSeconds(1), null, ServiceProcess.DEFAULT_JVM_OPTIONS);
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final BenchContext context;
    private final BenchCase benchCase;
    private final Shape shape;
    private final List<Service> ingests = new ArrayList<>();
    private final List<Service> sinks = new ArrayList<>();

    private record Service(ServiceProcess process, int metricsPort) {
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
            Path dir = context.caseDir(benchCase).resolve("ingest-" + i);
            int port = freePort();
            Map<String, String> settings = PipelineSettings.ingest(context.endpoints(), shape.shardMaxSamples(), shape.shardMaxBytes(),
                    shape.shardMaxAge(), dir.resolve("state"));
            settings.put(IngestConfig.APPLICATION_ID, benchCase.ingestApplicationId());
            settings.put(IngestConfig.TOPIC_SAMPLES, benchCase.samplesTopic());
            settings.put(IngestConfig.TOPIC_ASSIGNMENTS, benchCase.assignmentsTopic());
            settings.put(IngestConfig.TOPIC_DLQ, benchCase.dlqTopic());
            settings.put(IngestConfig.METRICS_PORT, Integer.toString(port));
            ingests.add(new Service(ServiceProcess.start("ingest-app", IngestApp.class.getName(), settings, dir), port));
        }
    }

    public void startSink() {
        for (int i = 0; i < shape.instances(); i++) {
            Path dir = context.caseDir(benchCase).resolve("sink-" + i);
            int port = freePort();
            Map<String, String> settings = PipelineSettings.sink(context.endpoints(), dir.resolve("spool"), benchCase.name() + "-sink-" + i);
            settings.put(SinkConfig.GROUP_ID, benchCase.sinkGroupId());
            settings.put(SinkConfig.TOPIC_ASSIGNMENTS, benchCase.assignmentsTopic());
            settings.put(SINK_SAMPLES_TOPIC, benchCase.samplesTopic());
            settings.put(SinkConfig.METRICS_PORT, Integer.toString(port));
            if (shape.writer() != null) {
                settings.put(SinkConfig.SHARD_WRITER, shape.writer());
            }
            sinks.add(new Service(ServiceProcess.start("shard-sink", ShardSinkApp.class.getName(), settings, dir, shape.sinkJvm(), List.of()),
                    port));
        }
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

    private static boolean ready(int port) throws InterruptedException {
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

    /** CPU seconds of every thread of the running instances so far, keyed by process and thread id (see {@link StageProfile.CpuSplit}). */
    public Map<String, Map.Entry<String, Double>> threadCpuSeconds() {
        Map<String, Map.Entry<String, Double>> threads = new HashMap<>();
        for (ServiceProcess process : all()) {
            ProcessMeter.threadCpuSeconds(process.pid()).forEach((thread, cpu) -> threads.put(process.pid() + ":" + thread, cpu));
        }
        return threads;
    }

    public ServiceProcess ingest(int instance) {
        return ingests.get(instance).process();
    }

    public ServiceProcess sink(int instance) {
        return sinks.get(instance).process();
    }

    private List<ServiceProcess> all() {
        List<ServiceProcess> all = new ArrayList<>();
        ingests.forEach(service -> all.add(service.process()));
        sinks.forEach(service -> all.add(service.process()));
        return all;
    }

    private static int freePort() {
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
    }
}
