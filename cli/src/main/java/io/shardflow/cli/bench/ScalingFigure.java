package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * P5, scale-out under CPU quotas: for each count k of {@code --scale-out}, k ingest-app and k
 * shard-sink instances, each JVM in its own cgroup allowed {@code --quota} CPUs ({@link CpuQuota}),
 * carry a pre-filled backlog on a topic of as many partitions as the largest k needs; the timed
 * window opens once the warm-up is committed and closes when every sample is. Each k carries k
 * times the samples, so every window is about as long. Goal: k instances at least 0.9 k times one,
 * as long as the quotas are what bounds them; where they are not, the row names what is, from each
 * role's CPU in the window (the instances against their quotas, the broker, the S3 server, the whole
 * machine from /proc/stat).
 */
public final class ScalingFigure implements Figure {

    private static final Duration TIMEOUT = Duration.ofMinutes(30);
    /** An instance whose CPU in the window reached this share of its quota was held by the quota. */
    private static final double QUOTA_BOUND = 0.85;
    /** A machine this busy (every process, other people's included) had no CPU to give. */
    private static final double MACHINE_BOUND = 0.95;

    record Point(int instances, double mbPerSecond, String bound, String detail) {
    }

    @Override
    public List<String> ids() {
        return List.of("p5");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        BenchOptions options = context.options();
        Optional<String> unavailable = CpuQuota.unavailable();
        if (unavailable.isPresent()) {
            context.recorder().add(Measurement.notMeasured("P5", "scale-out under CPU quotas", context.s3(), ">= 0.9 x k",
                    "no CPU quotas on this machine: " + unavailable.get()));
            return;
        }
        int partitions = partitionsFor(options.scaleOut());
        List<Point> points = new ArrayList<>();
        for (int k : options.scaleOut()) {
            points.add(measure(context, k, partitions));
        }
        Point one = points.get(0);
        for (Point point : points) {
            double expected = one.mbPerSecond() * point.instances() / one.instances();
            context.recorder().add(Measurement.againstBaseline("P5", String.format(Locale.ROOT, "%d instance%s of each at %s CPUs each",
                    point.instances(), point.instances() == 1 ? "" : "s", trim(options.quotaCores())), context.s3(), point.mbPerSecond(), "MB/s",
                    expected, point.instances() == one.instances() ? "itself" : one.instances() + " instance(s) x " + point.instances()
                            / (double) one.instances(), ">= 0.9 x k (until the broker or S3 bounds)", 0.9,
                    "bound: " + point.bound() + "; " + point.detail()));
        }
    }

    /** Enough partitions that every count of instances gets the same number each: their least common multiple, at most 12. */
    static int partitionsFor(List<Integer> counts) {
        int lcm = 1;
        for (int k : counts) {
            lcm = lcm * k / gcd(lcm, k);
        }
        return Math.min(12, Math.max(lcm, counts.stream().mapToInt(Integer::intValue).max().orElse(1)));
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    private static Point measure(BenchContext context, int k, int partitions) throws Exception {
        BenchOptions options = context.options();
        SampleShape shape = SampleShape.SMALL;
        long warmup = options.warmup() * k;
        long samples = options.samples() * k;
        long total = warmup + samples;
        context.say("P5 %d instance(s) of each service at %s CPUs each, %d samples after %d of warm-up, on %s", k,
                trim(options.quotaCores()), samples, warmup, context.s3());
        BenchCase benchCase = context.newCase("p5-" + k, partitions, shape);
        try (Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION));
             Progress progress = context.progress("P5 pre-fill", "samples", total)) {
            publishing.publish(0, total, progress);
        }
        ServicePipeline.Shape shape1 = ServicePipeline.Shape.throughput(k, options.shardSamples()).withQuota(options.quotaCores());
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase, shape1).start()) {
            pipeline.awaitIngestReady(Duration.ofMinutes(10));
            pipeline.awaitAllSinksReady(Duration.ofMinutes(10));
            var log = context.commitLog(benchCase);
            double[] throttledAtStart = new double[2];
            long[][] ticks = new long[2][];
            StageWindow.Result result;
            try (Progress progress = context.progress("P5 " + k + " of each", "samples", total)) {
                result = StageWindow.measure(() -> log.latest().sampleCount(), warmup, total, pipeline.cpuMeter(), () -> {
                    throttledAtStart[0] = pipeline.throttledSeconds(ServicePipeline.INGEST);
                    throttledAtStart[1] = pipeline.throttledSeconds(ServicePipeline.SINK);
                    ticks[0] = ProcessMeter.machineTicks();
                }, pipeline::requireAlive, TIMEOUT, progress);
            }
            ticks[1] = ProcessMeter.machineTicks();
            double seconds = result.seconds();
            double quotaSeconds = k * options.quotaCores() * seconds;
            double ingestUse = result.cpu().of(ServicePipeline.INGEST).total() / quotaSeconds;
            double sinkUse = result.cpu().of(ServicePipeline.SINK).total() / quotaSeconds;
            double busy = (ticks[1][0] - ticks[0][0]) / (double) Math.max(1, ticks[1][1] - ticks[0][1]);
            double cores = Runtime.getRuntime().availableProcessors();
            double ours = result.cpu().all().total() / seconds;
            String detail = String.format(Locale.ROOT, "%d samples in %.0f s; ingest-app at %.0f%% of its quotas (throttled %.0f s), "
                            + "shard-sink at %.0f%% (throttled %.0f s); broker %.2f cores, S3 server %.2f, registry %.2f; machine %.0f%% busy, "
                            + "%.2f cores of it not this run's", result.samples(), seconds, ingestUse * 100,
                    pipeline.throttledSeconds(ServicePipeline.INGEST) - throttledAtStart[0], sinkUse * 100,
                    pipeline.throttledSeconds(ServicePipeline.SINK) - throttledAtStart[1],
                    result.cpu().of(BenchContext.BROKER).total() / seconds, result.cpu().of(BenchContext.S3_SERVER).total() / seconds,
                    result.cpu().of(BenchContext.REGISTRY).total() / seconds, busy * 100, Math.max(0, busy * cores - ours));
            String bound = ingestUse >= QUOTA_BOUND || sinkUse >= QUOTA_BOUND
                    ? (ingestUse >= sinkUse ? "ingest-app" : "shard-sink") + " CPU quota"
                    : busy >= MACHINE_BOUND ? "the machine's CPU (every core busy; the services below their quotas)"
                    : "neither quota nor CPU: the broker or S3 (the services below their quotas, cores idle)";
            return new Point(k, result.samples() * shape.tensorBytes() / 1e6 / seconds, bound, detail);
        }
    }

    private static String trim(double cores) {
        return java.math.BigDecimal.valueOf(cores).stripTrailingZeros().toPlainString();
    }
}
