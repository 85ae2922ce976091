package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * P1a and P1b, each stage timed alone on pre-filled input, in steady state. The samples (warm-up
 * plus timed) are published first with no service running; ingest-app is started and its window
 * ({@link StageWindow}) opens once it has committed the warm-up's offsets and closes when its group
 * has no lag (P1a); only then is shard-sink started, its window opening once the warm-up's samples
 * are committed and closing when all are (P1b). Baselines, each run once before and once after its
 * stage: a raw consume of the samples topic (P1a), and a raw consume plus raw PUTs of the same bytes
 * cut into shard-sized objects (P1b).
 */
public final class StageFigures implements Figure {

    private static final Duration TIMEOUT = Duration.ofMinutes(30);
    /** After the lag is gone, the stage's last open shards still seal by age (1 s) before the sink may start. */
    private static final Duration LAST_SEALS = Duration.ofSeconds(3);

    @Override
    public List<String> ids() {
        return List.of("p1a", "p1b");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        SampleShape shape = SampleShape.SMALL;
        long samples = context.options().samples();
        long warmup = context.options().warmup();
        long total = warmup + samples;
        context.say("P1a/P1b stages alone, %d samples of %s after %d of warm-up, on %s", samples, shape.name(), warmup, context.s3());
        BenchCase benchCase = context.newCase("stages", 3, shape);
        try (Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION));
             Progress progress = context.progress("stages pre-fill", "samples", total)) {
            publishing.publish(0, total, progress);
        }
        RawStageBaselines raw = new RawStageBaselines(context, benchCase, warmup, samples, shape.tensorBytes());
        long shardBytes = context.options().shardSamples() * shape.tensorBytes();
        ServicePipeline.Shape shapeOfPipeline = ServicePipeline.Shape.throughput(1, context.options().shardSamples());
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase, shapeOfPipeline)) {
            raw.consume();
            pipeline.startIngest();
            pipeline.awaitIngestReady(Duration.ofMinutes(3));
            StageWindow.Result ingest = window(context, pipeline, "P1a ingest alone", ServicePipeline.INGEST, warmup, total,
                    () -> total - GroupLag.of(context.admin(), benchCase.ingestApplicationId(), benchCase.samplesTopic()),
                    "12KB samples to decisions");
            raw.consume();
            record(context, "P1a", "ingest stage alone", ServicePipeline.INGEST, ingest, shape, raw.consumeMbPerSecond(),
                    "raw consume of the same topic", raw.consumeSpread());
            Thread.sleep(LAST_SEALS.toMillis());

            raw.consumeAndPut(shardBytes);
            pipeline.startSink();
            pipeline.awaitSinkReady(Duration.ofMinutes(3));
            var log = context.commitLog(benchCase);
            StageWindow.Result sink = window(context, pipeline, "P1b sink alone", ServicePipeline.SINK, warmup, total,
                    () -> log.latest().sampleCount(), "12KB samples to committed shards");
            raw.consumeAndPut(shardBytes);
            record(context, "P1b", "sink stage alone", ServicePipeline.SINK, sink, shape, raw.consumeAndPutMbPerSecond(),
                    "raw consume + raw S3 PUT of shard-sized objects", raw.consumeAndPutSpread());
        }
    }

    private static StageWindow.Result window(BenchContext context, ServicePipeline pipeline, String task, String role, long warmup,
                                             long total, StageWindow.Done done, String work) throws Exception {
        WindowProfiler[] profiler = {WindowProfiler.none(context)};
        var process = role.equals(ServicePipeline.INGEST) ? pipeline.ingest(0) : pipeline.sink(0);
        StageWindow.Result result;
        try (Progress progress = context.progress(task, "samples", total)) {
            result = StageWindow.measure(done, warmup, total, pipeline.cpuMeter(),
                    () -> profiler[0] = WindowProfiler.start(context, List.of(role + " alone, steady state"), List.of(process)),
                    pipeline::requireAlive, TIMEOUT, progress);
        }
        profiler[0].stop(String.format(Locale.ROOT, "%d %s after %d of warm-up", result.samples(), work, warmup), result.seconds());
        return result;
    }

    private static void record(BenchContext context, String figure, String label, String role, StageWindow.Result result,
                               SampleShape shape, double rawMbPerSecond, String rawName, String rawSpread) {
        if (result.tooShortToTime()) {
            // A rate from a window of one commit step is noise (0 MB/s when the step held everything).
            context.recorder().add(Measurement.notMeasured(figure, shape.name() + " samples, " + label, context.s3(), ">= 0.8",
                    String.format(Locale.ROOT, "the stage did the %d samples after the warm-up within %.1f s of durable progress: too "
                            + "short to time; give it more with --samples (raw %s)", result.samples(), result.seconds(), rawSpread)));
            return;
        }
        double gigabytes = result.samples() * shape.tensorBytes() / 1e9;
        CpuSplit cpu = result.cpu().of(role).per(gigabytes);
        CpuSplit warm = result.warmup().of(role);
        context.recorder().add(Measurement.againstBaseline(figure, shape.name() + " samples, " + label, context.s3(),
                gigabytes * 1e3 / result.seconds(), "MB/s", rawMbPerSecond, rawName, ">= 0.8", 0.8,
                String.format(Locale.ROOT, "%d samples in %.1f s after the warm-up; %s %.2f CPU-s/GB (JIT %.2f, VM/GC %.2f); "
                        + "warm-up %.1f CPU-s (JIT %.1f); raw %s", result.samples(), result.seconds(), role, cpu.total(), cpu.jit(), cpu.vm(),
                        warm.total(), warm.jit(), rawSpread)));
    }
}
