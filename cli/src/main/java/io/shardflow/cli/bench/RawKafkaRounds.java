package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * The raw baseline of a pipeline run: the same records produced (edge-client's publisher) and
 * consumed (a plain consumer) through Kafka with nothing in between, on the case's raw topic. Warmed
 * up once; then measured in rounds interleaved with the pipeline (before and after it), so that
 * the baseline sees the machine's load as the pipeline did, and the rounds' spread says how much
 * that load moved.
 */
final class RawKafkaRounds implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofMinutes(30);

    /** One measured round: wall time, what the brokers wrote, and the CPU of every role over it. */
    record Round(long samples, long tensorBytes, double seconds, long brokerBytes, CpuMeter.Window cpu) {

        double mbPerSecond() {
            return tensorBytes / 1e6 / seconds;
        }

        /** CPU-seconds per GB of the raw clients (this JVM: sample generation, Avro serialization, produce, consume). */
        CpuSplit clientCpuPerGb() {
            return cpu.of(CpuMeter.BENCH_JVM).per(tensorBytes / 1e9);
        }
    }

    private final BenchContext context;
    private final SampleShape shape;
    private final String name;
    private final Publishing producer;
    private final RawKafka consumer;
    private final CpuMeter meter;
    private final List<Round> rounds = new ArrayList<>();
    private long next;

    RawKafkaRounds(BenchContext context, BenchCase benchCase, SampleShape shape, long warmup) {
        this.context = context;
        this.shape = shape;
        this.name = benchCase.name();
        this.producer = new Publishing(context, benchCase.rawTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION));
        this.consumer = RawKafka.fromBeginning(context.endpoints().bootstrapServers(), benchCase.rawTopic());
        this.meter = context.cpuMeter();
        try {
            producer.publish(0, warmup, Progress.silent());
            consumer.drain(warmup, TIMEOUT, Progress.silent());
        } catch (Exception e) {
            close();
            throw new IllegalStateException("raw warm-up failed", e);
        }
        next = warmup;
    }

    /** Produces {@code samples} new records while the consumer reads them; timed from the first send to the last record read. */
    Round measure(long samples) throws Exception {
        long diskBefore = BrokerDisk.bytes(context.admin());
        long first = next;
        CpuMeter.Look before = meter.look();
        CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
            try {
                producer.publish(first, samples, Progress.silent());
            } catch (Exception e) {
                throw new IllegalStateException("raw produce failed", e);
            }
        });
        try (Progress progress = context.progress(name + " raw kafka produce+consume", "samples", samples)) {
            consumer.drain(samples, TIMEOUT, progress);
        }
        producing.join();
        CpuMeter.Window cpu = meter.look().since(before);
        next += samples;
        Round round = new Round(samples, samples * shape.tensorBytes(), cpu.seconds(), BrokerDisk.bytes(context.admin()) - diskBefore, cpu);
        rounds.add(round);
        return round;
    }

    List<Round> rounds() {
        return List.copyOf(rounds);
    }

    /** Mean raw rate over the rounds. */
    double mbPerSecond() {
        return rounds.stream().mapToDouble(Round::mbPerSecond).average().orElse(Double.NaN);
    }

    /** Mean raw clients' CPU-seconds per GB over the rounds. */
    double clientCpuPerGb() {
        return rounds.stream().mapToDouble(round -> round.clientCpuPerGb().total()).average().orElse(Double.NaN);
    }

    /** The rounds' rates in words, e.g. "rounds 48.1 and 52.3 MB/s (spread 8%)". */
    String rateSpread() {
        return spread(rounds.stream().map(Round::mbPerSecond).toList(), "MB/s");
    }

    String cpuSpread() {
        return spread(rounds.stream().map(round -> round.clientCpuPerGb().total()).toList(), "CPU-s/GB");
    }

    static String spread(List<Double> values, String unit) {
        String listed = values.stream().map(value -> String.format(Locale.ROOT, "%.3g", value)).collect(Collectors.joining(" and "));
        if (values.size() < 2) {
            return "1 round " + listed + " " + unit;
        }
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        double mean = values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        return String.format(Locale.ROOT, "rounds %s %s (spread %.0f%%)", listed, unit, (max - min) / mean * 100);
    }

    @Override
    public void close() {
        producer.close();
        consumer.close();
    }
}
