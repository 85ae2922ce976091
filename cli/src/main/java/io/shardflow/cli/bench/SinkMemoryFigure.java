package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.stack.ServiceProcess;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * P4: shard-sink's peak heap and peak RSS while it builds one shard of each size, under the
 * services' default {@code -Xmx512m}, for each shard writer. One partition, so the whole shard
 * goes through one lane; 150 KB samples, so few records make a large shard. A sink that dies
 * (an OutOfMemoryError ends it with status 3) is a result, recorded as such.
 */
public final class SinkMemoryFigure implements Figure {

    public static final int HEAP_LIMIT_MIB = 512;
    public static final String HEAP_LIMIT = "-Xmx" + HEAP_LIMIT_MIB + "m";
    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private static final Duration NEVER_BY_AGE = Duration.ofHours(1);

    @Override
    public List<String> ids() {
        return List.of("p4");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        for (String writer : context.options().writers()) {
            for (int mib : context.options().sinkShardMib()) {
                MemoryPoint point = measure(context, writer, mib);
                context.recorder().add(point);
                String goal = "1 GiB shard under " + HEAP_LIMIT + "; RSS reported";
                String label = String.format(Locale.ROOT, "sink heap, %d MiB shard, writer %s", mib, writer);
                if (!point.completed()) {
                    context.recorder().add(new Measurement("P4", label, context.s3(), null, "MB", mib * 1.048576, "shard size", null, null, goal,
                            mib >= 1024 ? Boolean.FALSE : null, failure(point)));
                    continue;
                }
                context.recorder().add(Measurement.withGoal("P4", label, context.s3(), point.peakHeapMb(), "MB", mib * 1.048576, "shard size",
                        goal, mib >= 1024 ? Boolean.TRUE : null, String.format(Locale.ROOT, "peak RSS %.0f MB", point.peakRssMb())));
            }
        }
    }

    private static MemoryPoint measure(BenchContext context, String writer, int mib) throws Exception {
        SampleShape shape = SampleShape.LARGE;
        long shardBytes = (long) mib << 20;
        // enough to fill the shard, and one more that cannot fit, which seals it by bytes
        long samples = shardBytes / shape.tensorBytes() + 2;
        context.say("P4 sink memory: %d MiB shard (%d samples of %s), writer %s, %s", mib, samples, shape.name(), writer, HEAP_LIMIT);
        BenchCase benchCase = context.newCase("p4-" + writer + "-" + mib, 1, shape);
        // the services' JVM options, plus an exit the moment the heap is exhausted: the sink's own
        // handler (exit 3) can lose that status in a race with its orderly stop, and an OOM must read as one here
        List<String> jvm = List.of(HEAP_LIMIT, "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");
        ServicePipeline.Shape pipelineShape = new ServicePipeline.Shape(1, 1_000_000, shardBytes, NEVER_BY_AGE, writer, jvm);
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase, pipelineShape).start();
             HeapSampler sampler = HeapSampler.start(pipeline.sink(0).pid(), 200);
             Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION))) {
            try (Progress progress = context.progress("P4 publish " + mib + " MiB", "samples", samples)) {
                publishing.publish(0, samples, progress);
            }
            String outcome = awaitOneShard(context, benchCase, pipeline);
            return new MemoryPoint(writer, mib, HEAP_LIMIT, outcome, boxed(sampler.peakHeapMb()), boxed(sampler.peakRssMb()));
        }
    }

    /** "ok" once a shard is committed; otherwise how the sink ended. */
    private static String awaitOneShard(BenchContext context, BenchCase benchCase, ServicePipeline pipeline) throws InterruptedException {
        var log = context.commitLog(benchCase);
        ServiceProcess sink = pipeline.sink(0);
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!log.latest().shards().isEmpty()) {
                return "ok";
            }
            if (!sink.isAlive()) {
                return sink.ownLog().contains("OutOfMemoryError") ? "OutOfMemoryError"
                        : "sink exited with code " + sink.exitCode() + " before committing the shard";
            }
            Thread.sleep(100);
        }
        return "no shard within " + TIMEOUT.toMinutes() + " min";
    }

    private static String failure(MemoryPoint point) {
        return point.outcome() + String.format(Locale.ROOT, " (peak heap %s, peak RSS %s before it)", megabytes(point.peakHeapMb()),
                megabytes(point.peakRssMb()));
    }

    private static String megabytes(Double value) {
        return value == null ? "unknown" : String.format(Locale.ROOT, "%.0f MB", value);
    }

    private static Double boxed(OptionalDouble value) {
        return value.isPresent() ? value.getAsDouble() : null;
    }
}
