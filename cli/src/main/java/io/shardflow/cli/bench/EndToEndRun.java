package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Publish to committed through the whole pipeline, and the raw Kafka produce+consume of the same
 * records in the same run: the measurement behind P1, the broker-bytes figure and P5.
 *
 * @param rawSeconds           produce+consume of the records with nothing in between; NaN when not run
 * @param pipelineBrokerBytes  what the brokers wrote while the pipeline carried the timed samples
 * @param rawClientCpuSeconds  CPU of the raw run's clients (this JVM: producer, consumer, sample generation)
 * @param serviceCpu           CPU of every ingest-app and shard-sink process over the timed part, and its JIT and VM-thread parts
 */
public record EndToEndRun(long samples, long tensorBytes, double rawSeconds, long rawBrokerBytes, double rawClientCpuSeconds,
                          double pipelineSeconds, long pipelineBrokerBytes, StageProfile.CpuSplit serviceCpu) {

    private static final Duration TIMEOUT = Duration.ofMinutes(15);
    /** ingest-app commits its transaction every second: let the last one land before the brokers are measured. */
    private static final Duration SETTLE = Duration.ofMillis(1500);

    public static EndToEndRun measure(BenchContext context, String name, SampleShape shape, long samples, int instances, boolean withRaw)
            throws Exception {
        BenchCase benchCase = context.newCase(name, 3, shape);
        long warmup = context.options().warmup();
        long tensorBytes = samples * shape.tensorBytes();
        double rawSeconds = Double.NaN;
        long rawBroker = 0;
        double rawCpu = Double.NaN;
        if (withRaw) {
            try (Publishing raw = new Publishing(context, benchCase.rawTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION));
                 RawKafka consumer = RawKafka.fromBeginning(context.endpoints().bootstrapServers(), benchCase.rawTopic())) {
                raw.publish(0, warmup, Progress.silent());
                consumer.drain(warmup, TIMEOUT, Progress.silent());
                long diskBefore = BrokerDisk.bytes(context.admin());
                double cpuBefore = ProcessMeter.ownCpuSeconds();
                long start = System.nanoTime();
                CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
                    try {
                        raw.publish(warmup, samples, Progress.silent());
                    } catch (Exception e) {
                        throw new IllegalStateException("raw produce failed", e);
                    }
                });
                try (Progress progress = context.progress(name + " raw kafka produce+consume", "samples", samples)) {
                    consumer.drain(samples, TIMEOUT, progress);
                }
                producing.join();
                rawSeconds = (System.nanoTime() - start) / 1e9;
                rawCpu = ProcessMeter.ownCpuSeconds() - cpuBefore;
                rawBroker = BrokerDisk.bytes(context.admin()) - diskBefore;
            }
        }
        ServicePipeline.Shape pipelineShape = ServicePipeline.Shape.throughput(instances, context.options().shardSamples());
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase, pipelineShape).start();
             Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION))) {
            var log = context.commitLog(benchCase);
            publishing.publish(0, warmup, Progress.silent());
            CommitWatch.await(log, warmup, 0, pipeline, TIMEOUT, Progress.silent());
            Thread.sleep(SETTLE.toMillis());
            long diskBefore = BrokerDisk.bytes(context.admin());
            var threadsBefore = pipeline.threadCpuSeconds();
            long start = System.nanoTime();
            try (Progress progress = context.progress(name + " pipeline publish", "samples", samples)) {
                publishing.publish(warmup, samples, progress);
            }
            try (Progress progress = context.progress(name + " pipeline commit", "samples", samples)) {
                CommitWatch.await(log, warmup + samples, warmup, pipeline, TIMEOUT, progress);
            }
            double pipelineSeconds = (System.nanoTime() - start) / 1e9;
            StageProfile.CpuSplit serviceCpu = StageProfile.CpuSplit.between(threadsBefore, pipeline.threadCpuSeconds());
            Thread.sleep(SETTLE.toMillis());
            long pipelineBroker = BrokerDisk.bytes(context.admin()) - diskBefore;
            return new EndToEndRun(samples, tensorBytes, rawSeconds, rawBroker, rawCpu, pipelineSeconds, pipelineBroker, serviceCpu);
        }
    }

    public double rawMbPerSecond() {
        return tensorBytes / 1e6 / rawSeconds;
    }

    public double pipelineMbPerSecond() {
        return tensorBytes / 1e6 / pipelineSeconds;
    }

    public double serviceCpuSeconds() {
        return serviceCpu.total();
    }

    public double gigabytes() {
        return tensorBytes / 1e9;
    }
}
