package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.dataset.log.CommitLog;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Publish to committed through the whole pipeline, beside raw Kafka produce+consume of the same
 * records in the same run: the measurement behind P1, the broker-bytes figure and the steady-state
 * CPU figure. The pipeline first carries a warm-up (JIT compilation, caches, first shards) whose CPU
 * is kept apart; the clock and the CPU counters then cover only the timed samples. The raw rounds
 * run before the pipeline and, when asked, after it too (see {@link RawKafkaRounds}).
 *
 * @param raw                  the raw rounds, in the order run; empty when not run
 * @param pipelineBrokerBytes  what the brokers wrote while the pipeline carried the timed samples
 * @param warmupSamples        samples carried before the timed part
 * @param warmup               CPU of every role from the services' readiness to the warm-up's last commit
 * @param steady               CPU of every role over the timed part
 */
public record EndToEndRun(long samples, long tensorBytes, List<RawKafkaRounds.Round> raw, double pipelineSeconds,
                          long pipelineBrokerBytes, long warmupSamples, long warmupTensorBytes, CpuMeter.Window warmup,
                          CpuMeter.Window steady) {

    private static final Duration TIMEOUT = Duration.ofMinutes(30);
    /** ingest-app commits its transaction every second: let the last one land before the brokers are measured. */
    private static final Duration SETTLE = Duration.ofMillis(1500);

    /**
     * @param rawRounds 0 (no baseline), 1 (before the pipeline) or 2 (before and after)
     */
    public static EndToEndRun measure(BenchContext context, String name, SampleShape shape, long samples, int instances, int rawRounds)
            throws Exception {
        return measure(context, name, shape, samples, instances, rawRounds, false);
    }

    /**
     * As above; with {@code profile}, the first instance of each service is then recorded while it
     * carries as many samples again, after the timed part ({@link WindowProfiler}).
     */
    public static EndToEndRun measure(BenchContext context, String name, SampleShape shape, long samples, int instances, int rawRounds,
                                      boolean profile) throws Exception {
        BenchCase benchCase = context.newCase(name, 3, shape);
        long warmup = shape.samplesFor(context.options().warmup() * SampleShape.SMALL.tensorBytes());
        try (RawKafkaRounds raw = rawRounds > 0 ? new RawKafkaRounds(context, benchCase, shape, warmup) : null) {
            if (raw != null) {
                raw.measure(samples);
            }
            EndToEndRun run = pipeline(context, name, benchCase, shape, samples, warmup, instances, profile);
            if (raw != null && rawRounds > 1) {
                raw.measure(samples);
            }
            return raw == null ? run : run.withRaw(raw.rounds());
        }
    }

    private static EndToEndRun pipeline(BenchContext context, String name, BenchCase benchCase, SampleShape shape, long samples,
                                        long warmup, int instances, boolean profile) throws Exception {
        ServicePipeline.Shape pipelineShape = ServicePipeline.Shape.throughput(instances, context.options().shardSamples());
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase, pipelineShape).start();
             Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION))) {
            var log = context.commitLog(benchCase);
            CpuMeter meter = pipeline.cpuMeter();
            pipeline.awaitIngestReady(Duration.ofMinutes(3));
            pipeline.awaitSinkReady(Duration.ofMinutes(3));
            CpuMeter.Look ready = meter.look();
            try (Progress progress = context.progress(name + " warm-up", "samples", warmup)) {
                publishing.publish(0, warmup, Progress.silent());
                CommitWatch.await(log, warmup, 0, pipeline, TIMEOUT, progress);
            }
            Thread.sleep(SETTLE.toMillis());
            long diskBefore = BrokerDisk.bytes(context.admin());
            CpuMeter.Look start = meter.look();
            CpuMeter.Window warm = start.since(ready);
            try (Progress progress = context.progress(name + " pipeline publish", "samples", samples)) {
                publishing.publish(warmup, samples, progress);
            }
            try (Progress progress = context.progress(name + " pipeline commit", "samples", samples)) {
                CommitWatch.await(log, warmup + samples, warmup, pipeline, TIMEOUT, progress);
            }
            CpuMeter.Window steady = meter.look().since(start);
            Thread.sleep(SETTLE.toMillis());
            long pipelineBroker = BrokerDisk.bytes(context.admin()) - diskBefore;
            if (profile) {
                profileMore(context, name, shape, pipeline, publishing, log, warmup + samples, samples, meter);
            }
            return new EndToEndRun(samples, samples * shape.tensorBytes(), List.of(), steady.seconds(), pipelineBroker, warmup,
                    warmup * shape.tensorBytes(), warm, steady);
        }
    }

    /**
     * Records the services with the profiler over samples published after the timed part, not during
     * it: JDK Flight Recorder's own sampling cost about a CPU-second per GB on top of the services'
     * (bench runs with and without it), which the CPU figure must not carry.
     */
    private static void profileMore(BenchContext context, String name, SampleShape shape, ServicePipeline pipeline, Publishing publishing,
                                    CommitLog log, long carried, long samples, CpuMeter meter) throws Exception {
        WindowProfiler profiler = WindowProfiler.start(context, List.of("ingest-app, end to end, steady state",
                "shard-sink, end to end, steady state"), List.of(pipeline.ingest(0), pipeline.sink(0)));
        CpuMeter.Look start = meter.look();
        try (Progress progress = context.progress(name + " profiled publish", "samples", samples)) {
            publishing.publish(carried, samples, progress);
        }
        try (Progress progress = context.progress(name + " profiled commit", "samples", samples)) {
            CommitWatch.await(log, carried + samples, carried, pipeline, TIMEOUT, progress);
        }
        profiler.stop(String.format(Locale.ROOT, "%.2f GB of %s samples published and committed after the timed %.2f GB (warm-up included)",
                samples * shape.tensorBytes() / 1e9, shape.name(), carried * shape.tensorBytes() / 1e9), meter.look().since(start).seconds());
    }

    private EndToEndRun withRaw(List<RawKafkaRounds.Round> rounds) {
        return new EndToEndRun(samples, tensorBytes, rounds, pipelineSeconds, pipelineBrokerBytes, warmupSamples, warmupTensorBytes,
                warmup, steady);
    }

    /** Mean of the raw rounds; NaN when none ran. */
    public double rawMbPerSecond() {
        return raw.stream().mapToDouble(RawKafkaRounds.Round::mbPerSecond).average().orElse(Double.NaN);
    }

    /** The first raw round's broker bytes (the broker-bytes figure's baseline). */
    public long rawBrokerBytes() {
        return raw.isEmpty() ? 0 : raw.get(0).brokerBytes();
    }

    /** Mean of the raw rounds' client CPU-seconds per GB; NaN when none ran. */
    public double rawClientCpuPerGb() {
        return raw.stream().mapToDouble(round -> round.clientCpuPerGb().total()).average().orElse(Double.NaN);
    }

    /** The raw rounds' rates in words, with their spread. */
    public String rawRates() {
        return RawKafkaRounds.spread(raw.stream().map(RawKafkaRounds.Round::mbPerSecond).toList(), "MB/s");
    }

    public String rawCpus() {
        return RawKafkaRounds.spread(raw.stream().map(round -> round.clientCpuPerGb().total()).toList(), "CPU-s/GB");
    }

    public double pipelineMbPerSecond() {
        return tensorBytes / 1e6 / pipelineSeconds;
    }

    /** CPU of every ingest-app and shard-sink process over the timed part. */
    public CpuSplit serviceCpu() {
        return steady.of(ServicePipeline.SERVICES);
    }

    public double serviceCpuSeconds() {
        return serviceCpu().total();
    }

    public double gigabytes() {
        return tensorBytes / 1e9;
    }

    /** One stage's steady CPU per GB in words, JIT compiler threads apart: "ingest-app 3.61 (VM/GC 0.12) + JIT 1.90". */
    public String stageCpu(String role) {
        CpuSplit perGb = steady.of(role).per(gigabytes());
        return String.format(Locale.ROOT, "%s %.2f (VM/GC %.2f) + JIT %.2f", role, perGb.total() - perGb.jit(), perGb.vm(), perGb.jit());
    }

    /** Every role's steady CPU per GB in words, largest first: what the machine spent per GB. */
    public String machineCpu() {
        StringBuilder text = new StringBuilder();
        steady.byRole().entrySet().stream().sorted((a, b) -> Double.compare(b.getValue().total(), a.getValue().total()))
                .forEach(entry -> text.append(text.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.2f", entry.getKey(),
                        entry.getValue().total() / gigabytes())));
        return text.toString();
    }
}
