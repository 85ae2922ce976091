package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.stack.ServiceProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * P2: from the first sample of a shard (its {@code producedAt}, stamped on this machine when
 * published) to the first snapshot that holds the shard, seen by polling the commit log every
 * 50 ms. Samples trickle in slowly and shards are large, so every shard seals by age.
 */
public final class SealLatencyFigure implements Figure {

    private static final Duration POLL = Duration.ofMillis(50);

    @Override
    public List<String> ids() {
        return List.of("p2");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        BenchOptions options = context.options();
        SampleShape shape = SampleShape.SMALL;
        long total = options.sealRun().toSeconds() * options.sealRate();
        context.say("P2 seal latency: %d samples at %d/s, shard.max.age.ms=%d, on %s", total, options.sealRate(), options.sealAge().toMillis(),
                context.s3());
        BenchCase benchCase = context.newCase("p2-seal", 3, shape);
        ServicePipeline.Shape pipelineShape = new ServicePipeline.Shape(1, 1_000_000, 1L << 30, options.sealAge(), null,
                ServiceProcess.DEFAULT_JVM_OPTIONS);
        List<Long> latencies = new ArrayList<>();
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase, pipelineShape).start();
             Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION))) {
            pipeline.awaitIngestReady(Duration.ofMinutes(3));
            pipeline.awaitSinkReady(Duration.ofMinutes(3));
            Progress progress = context.progress("P2 paced publish", "samples", total);
            CommitLog log = context.commitLog(benchCase);
            Set<String> seen = new HashSet<>();
            long periodNanos = 1_000_000_000L / options.sealRate();
            long start = System.nanoTime();
            long nextPoll = start;
            for (long n = 0; n < total; n++) {
                long slot = start + n * periodNanos;
                while (System.nanoTime() < slot) {
                    nextPoll = pollWhenDue(log, seen, latencies, context, nextPoll);
                    Thread.sleep(Math.max(1, Math.min(POLL.toMillis(), (slot - System.nanoTime()) / 1_000_000)));
                }
                publishing.publishOne(n);
                progress.advance(1);
            }
            progress.close();
            long deadline = System.nanoTime() + options.sealAge().plusSeconds(60).toNanos();
            while (log.latest().sampleCount() < total && System.nanoTime() < deadline) {
                pipeline.requireAlive();
                nextPoll = pollWhenDue(log, seen, latencies, context, nextPoll);
                Thread.sleep(POLL.toMillis());
            }
            poll(log, seen, latencies, context);
        }
        LatencySeries series = new LatencySeries("12KB samples", context.s3(), options.sealAge().toMillis(), latencies);
        context.recorder().add(series);
        if (latencies.isEmpty()) {
            context.recorder().add(Measurement.notMeasured("P2", "seal latency p99", context.s3(), "p99 <= shard.max.age.ms + 2 s",
                    "no shard was committed"));
            return;
        }
        double ageSeconds = options.sealAge().toMillis() / 1000.0;
        String detail = String.format(Locale.ROOT, "%d shards, p50 %.2f s", latencies.size(), series.p50() / 1000);
        context.recorder().add(Measurement.withGoal("P2", "seal latency p99", context.s3(), series.p99() / 1000, "s", ageSeconds,
                "shard.max.age.ms", "p99 <= max age + 2 s", series.p99() <= options.sealAge().toMillis() + 2000, detail));
        context.recorder().add(Measurement.withGoal("P2", "seal latency p50", context.s3(), series.p50() / 1000, "s", ageSeconds,
                "shard.max.age.ms", "reported", null, null));
    }

    private static long pollWhenDue(CommitLog log, Set<String> seen, List<Long> latencies, BenchContext context, long nextPoll) {
        long now = System.nanoTime();
        if (now < nextPoll) {
            return nextPoll;
        }
        poll(log, seen, latencies, context);
        return now + POLL.toNanos();
    }

    private static void poll(CommitLog log, Set<String> seen, List<Long> latencies, BenchContext context) {
        Snapshot latest = log.latest();
        long visibleAt = context.clock().millis();
        for (ShardEntry shard : latest.shards()) {
            if (seen.add(shard.shardId())) {
                latencies.add(visibleAt - shard.firstProducedAt());
            }
        }
    }
}
