package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.ingest.IngestApp;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * START: how long a service JVM takes from its launch to ready ({@code /ready} answers 200: Streams
 * RUNNING for ingest-app, partitions assigned for shard-sink), and the CPU it spends on the way,
 * with the default JVM and with an application class-data archive (AppCDS: the classes the service
 * loaded in a training run, dumped at its exit with {@code -XX:ArchiveClassesAtExit} and mapped at
 * start with {@code -XX:SharedArchiveFile}). Restarts of one instance with its local state kept, the
 * way an orchestrator restarts it; the variants alternate, so the machine's load hits both alike.
 */
public final class StartupFigure implements Figure {

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
    /** Samples the training run carries, so the archive also holds the classes of the hot path. */
    private static final long TRAINING_SAMPLES = 1000;

    private record Service(String name, String mainClass) {
    }

    private record Start(double seconds, double cpuSeconds) {
    }

    @Override
    public List<String> ids() {
        return List.of("start");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        SampleShape shape = SampleShape.SMALL;
        BenchCase benchCase = context.newCase("start", 3, shape);
        ServicePipeline settings = new ServicePipeline(context, benchCase, ServicePipeline.Shape.throughput(1, 500));
        CdsClasspath cds = CdsClasspath.of(System.getProperty("java.class.path"), context.caseDir(benchCase).resolve("jars"));
        String classpath = cds.classpath();
        List<String> base = new ArrayList<>(ServiceProcess.DEFAULT_JVM_OPTIONS);
        base.addAll(cds.jvmOptions());
        List<Service> services = List.of(new Service(ServicePipeline.INGEST, IngestApp.class.getName()),
                new Service(ServicePipeline.SINK, ShardSinkApp.class.getName()));
        Map<String, Path> archives = new LinkedHashMap<>();
        services.forEach(service -> archives.put(service.name(), context.caseDir(benchCase).resolve(service.name() + ".jsa")));
        context.say("START training run: archive the classes each service loads while it carries %d samples", TRAINING_SAMPLES);
        train(context, benchCase, settings, services, archives, classpath, base);
        Map<String, Map<String, List<Start>>> starts = new LinkedHashMap<>();
        for (int repeat = 0; repeat < context.options().startRepeats(); repeat++) {
            for (Service service : services) {
                for (String variant : List.of("default", "AppCDS")) {
                    if (variant.equals("AppCDS") && !Files.isRegularFile(archives.get(service.name()))) {
                        continue;
                    }
                    List<String> jvm = new ArrayList<>(base);
                    if (variant.equals("AppCDS")) {
                        jvm.add("-XX:SharedArchiveFile=" + archives.get(service.name()));
                    }
                    Start start = timeToReady(settings, service, jvm, classpath);
                    context.say("START %s %s: ready in %.2f s, %.2f CPU-s", service.name(), variant, start.seconds(), start.cpuSeconds());
                    starts.computeIfAbsent(service.name(), name -> new LinkedHashMap<>()).computeIfAbsent(variant, v -> new ArrayList<>()).add(start);
                }
            }
        }
        for (Service service : services) {
            record(context, service.name(), starts.getOrDefault(service.name(), Map.of()));
        }
    }

    /** Both services with -XX:ArchiveClassesAtExit, carrying samples end to end, then stopped: the archives are written at exit. */
    private static void train(BenchContext context, BenchCase benchCase, ServicePipeline settings, List<Service> services,
                              Map<String, Path> archives, String classpath, List<String> base) throws Exception {
        List<ServiceProcess> running = new ArrayList<>();
        try (Publishing publishing = new Publishing(context, benchCase.samplesTopic(), SampleShape.SMALL.samples(benchCase.dataset(),
                BenchCase.VERSION))) {
            for (Service service : services) {
                List<String> jvm = new ArrayList<>(base);
                jvm.add("-XX:ArchiveClassesAtExit=" + archives.get(service.name()));
                running.add(launch(settings, service, jvm, classpath, ServicePipeline.freePort()));
            }
            publishing.publish(0, TRAINING_SAMPLES, Progress.silent());
            CommitWatch.await(context.commitLog(benchCase), TRAINING_SAMPLES, 0, null, READY_TIMEOUT, Progress.silent());
        } finally {
            running.forEach(ServiceProcess::close);
        }
    }

    private static ServiceProcess launch(ServicePipeline settings, Service service, List<String> jvm, String classpath, int port) {
        boolean ingest = service.name().equals(ServicePipeline.INGEST);
        Map<String, String> config = ingest ? settings.ingestSettings(0, port) : settings.sinkSettings(0, port);
        return ServiceProcess.start(service.name(), service.mainClass(), config, ingest ? settings.ingestDir(0) : settings.sinkDir(0), jvm,
                List.of(), classpath);
    }

    private static Start timeToReady(ServicePipeline settings, Service service, List<String> jvm, String classpath) throws Exception {
        int port = ServicePipeline.freePort();
        long started = System.nanoTime();
        try (ServiceProcess process = launch(settings, service, jvm, classpath, port)) {
            long deadline = started + READY_TIMEOUT.toNanos();
            while (!ServicePipeline.ready(port)) {
                process.requireAlive();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(service.name() + " not ready within " + READY_TIMEOUT.toSeconds() + " s; see " + process.log());
                }
                Thread.sleep(20);
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            return new Start(seconds, ProcessMeter.cpuSeconds(process.pid()).orElse(Double.NaN));
        }
    }

    private static void record(BenchContext context, String service, Map<String, List<Start>> byVariant) {
        List<Start> plain = byVariant.getOrDefault("default", List.of());
        List<Start> shared = byVariant.getOrDefault("AppCDS", List.of());
        if (plain.isEmpty()) {
            context.recorder().add(Measurement.notMeasured("START", service + ", JVM start to ready", context.s3(), "reported", "no start measured"));
            return;
        }
        String detail = String.format(Locale.ROOT, "median of %d starts each; CPU to ready %.2f s default, %s AppCDS; starts: default %s, AppCDS %s",
                plain.size(), median(plain, Start::cpuSeconds), shared.isEmpty() ? "no archive:" : String.format(Locale.ROOT, "%.2f s",
                        median(shared, Start::cpuSeconds)), list(plain), shared.isEmpty() ? "not run (no archive was written)" : list(shared));
        double plainSeconds = median(plain, Start::seconds);
        if (shared.isEmpty()) {
            context.recorder().add(Measurement.withGoal("START", service + ", JVM start to ready, default JVM", context.s3(), plainSeconds, "s",
                    Double.NaN, "", "reported", null, detail));
            return;
        }
        context.recorder().add(Measurement.withGoal("START", service + ", JVM start to ready, AppCDS vs default JVM", context.s3(),
                median(shared, Start::seconds), "s", plainSeconds, "default JVM", "reported; AppCDS if it pays", null, detail));
    }

    private static double median(List<Start> starts, java.util.function.ToDoubleFunction<Start> value) {
        double[] sorted = starts.stream().mapToDouble(value).sorted().toArray();
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    private static String list(List<Start> starts) {
        return starts.stream().map(start -> String.format(Locale.ROOT, "%.2f", start.seconds())).collect(Collectors.joining("/")) + " s";
    }
}
