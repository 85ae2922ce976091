package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.stack.ServiceProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * P1a and P1b, each stage timed alone on pre-filled input. The samples are published first with
 * no service running; ingest-app is started and timed until its group has no lag on them (P1a);
 * only then is shard-sink started and timed until every sample is committed (P1b). That keeps
 * "pre-filled input" the same whatever the sink reads (assignments, or samples plus decisions).
 * Baselines: a raw consume of the samples topic (P1a), and a raw consume of it plus raw PUTs of the
 * same bytes cut into objects of the committed shards' average size (P1b).
 */
public final class StageFigures implements Figure {

    private static final Duration TIMEOUT = Duration.ofMinutes(15);
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
        double megabytes = samples * shape.tensorBytes() / 1e6;
        context.say("P1a/P1b stages alone, %d samples of %s on %s", samples, shape.name(), context.s3());
        BenchCase benchCase = context.newCase("stages", 3, shape);
        try (Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION));
             Progress progress = context.progress("stages pre-fill", "samples", samples)) {
            publishing.publish(0, samples, progress);
        }
        double rawConsumeSeconds = rawConsume(context, benchCase, samples);
        ServicePipeline.Shape shapeOfPipeline = ServicePipeline.Shape.throughput(1, context.options().shardSamples());
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase, shapeOfPipeline)) {
            pipeline.startIngest();
            pipeline.awaitIngestReady(Duration.ofMinutes(3));
            Profiling ingestProfile = Profiling.start(context, pipeline.ingest(0), "ingest");
            long start = System.nanoTime();
            try (Progress progress = context.progress("P1a ingest alone", "samples", samples)) {
                awaitNoLag(context, benchCase, pipeline, samples, progress);
            }
            double ingestSeconds = (System.nanoTime() - start) / 1e9;
            List<StageProfile> profiles = new ArrayList<>();
            ingestProfile.stop("P1a ingest-app alone", samples + " samples of " + shape.name() + " to decisions", ingestSeconds, profiles);
            context.recorder().add(Measurement.againstBaseline("P1a", shape.name() + " samples, ingest stage alone", context.s3(),
                    megabytes / ingestSeconds, "MB/s", megabytes / rawConsumeSeconds, "raw consume of the same topic", ">= 0.8", 0.8,
                    String.format(Locale.ROOT, "%d samples in %.1f s", samples, ingestSeconds)));
            Thread.sleep(LAST_SEALS.toMillis());

            pipeline.startSink();
            pipeline.awaitSinkReady(Duration.ofMinutes(3));
            Profiling sinkProfile = Profiling.start(context, pipeline.sink(0), "sink");
            start = System.nanoTime();
            Snapshot committed;
            try (Progress progress = context.progress("P1b sink alone", "samples", samples)) {
                committed = CommitWatch.await(context.commitLog(benchCase), samples, 0, pipeline, TIMEOUT, progress);
            }
            double sinkSeconds = (System.nanoTime() - start) / 1e9;
            sinkProfile.stop("P1b shard-sink alone", samples + " samples of " + shape.name() + " to committed shards", sinkSeconds, profiles);
            Profiling.write(context, profiles);
            long shardBytes = Math.max(1, committed.bytes() / Math.max(1, committed.shards().size()));
            double rawSinkSeconds = rawConsumeAndPut(context, benchCase, samples, shardBytes);
            context.recorder().add(Measurement.againstBaseline("P1b", shape.name() + " samples, sink stage alone", context.s3(),
                    megabytes / sinkSeconds, "MB/s", megabytes / rawSinkSeconds, "raw consume + raw S3 PUT of shard-sized objects",
                    ">= 0.8", 0.8, String.format(Locale.ROOT, "%d shards of %.1f MB in %.1f s", committed.shards().size(), shardBytes / 1e6,
                            sinkSeconds)));
        }
    }

    private static double rawConsume(BenchContext context, BenchCase benchCase, long samples) {
        long start = System.nanoTime();
        try (RawKafka consumer = RawKafka.fromBeginning(context.endpoints().bootstrapServers(), benchCase.samplesTopic());
             Progress progress = context.progress("P1a raw consume", "samples", samples)) {
            consumer.drain(samples, TIMEOUT, progress);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static void awaitNoLag(BenchContext context, BenchCase benchCase, ServicePipeline pipeline, long samples, Progress progress)
            throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            long lag = GroupLag.of(context.admin(), benchCase.ingestApplicationId(), benchCase.samplesTopic());
            progress.update(samples - lag);
            if (lag == 0) {
                return;
            }
            pipeline.requireAlive();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("ingest-app still " + lag + " records behind after " + TIMEOUT.toMinutes() + " min");
            }
            Thread.sleep(50);
        }
    }

    /** The sink's work with nothing of ours in it: read the records, PUT their bytes in shard-sized objects. */
    private static double rawConsumeAndPut(BenchContext context, BenchCase benchCase, long samples, long shardBytes) {
        long start = System.nanoTime();
        ByteArrayOutputStream shard = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, shardBytes + (1 << 20)));
        int[] objects = {0};
        try (RawKafka consumer = RawKafka.fromBeginning(context.endpoints().bootstrapServers(), benchCase.samplesTopic());
             Progress progress = context.progress("P1b raw consume + PUT", "samples", samples)) {
            consumer.drain(samples, TIMEOUT, progress, record -> {
                shard.writeBytes(record.value());
                if (shard.size() >= shardBytes) {
                    put(context, benchCase, objects[0]++, shard);
                }
            });
        }
        if (shard.size() > 0) {
            put(context, benchCase, objects[0], shard);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static void put(BenchContext context, BenchCase benchCase, int object, ByteArrayOutputStream shard) {
        context.store().putIfAbsent(String.format(Locale.ROOT, "bench-raw/%s/object-%06d", benchCase.name(), object), shard.toByteArray());
        shard.reset();
    }

    /** A JFR recording of one stage's service over its timed window, when the run profiles; nothing otherwise. */
    private record Profiling(BenchContext context, ServiceProcess process, JfrRecording recording,
                             Map<Long, Map.Entry<String, Double>> threadsAtStart) {

        static Profiling start(BenchContext context, ServiceProcess process, String name) {
            Path dir = context.options().profileDir();
            JfrRecording recording = dir == null ? null
                    : JfrRecording.start(process.pid(), context.workDir().resolve(name + "-" + context.s3() + ".jfr"));
            return new Profiling(context, process, recording, ProcessMeter.threadCpuSeconds(process.pid()));
        }

        void stop(String stage, String work, double seconds, List<StageProfile> profiles) throws IOException {
            if (recording != null) {
                StageProfile.CpuSplit cpu = StageProfile.CpuSplit.between(threadsAtStart, ProcessMeter.threadCpuSeconds(process.pid()));
                profiles.add(StageProfile.read(stage + " (" + context.s3() + ")", work, seconds, cpu, List.of(recording.stop())));
            }
        }

        static void write(BenchContext context, List<StageProfile> profiles) throws IOException {
            if (!profiles.isEmpty()) {
                String command = String.format(Locale.ROOT, "bin/shardflow bench --only p1a,p1b --s3 %s --samples %d --profile", context.s3(),
                        context.options().samples());
                context.say("wrote %s", ProfileReport.write(context.options().profileDir(), profiles,
                        MachineInfo.detect(context.options().checkout(), context.clock()), command));
            }
        }
    }
}
