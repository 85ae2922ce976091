package io.shardflow.cli.bench;

import io.shardflow.stack.S3Kind;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What one run of the suite measures, and how much of it.
 *
 * @param figures       the figures to run (ids as in {@link #FIGURES}); all when the user named none
 * @param s3Kinds       P1 runs on each; the other figures on the first
 * @param shapes        sample sizes of P1
 * @param samples       12 KB samples per P1 case (other sizes: the same tensor bytes); also P1a/P1b and P5
 * @param warmup        samples sent through each pipeline before the clock starts
 * @param shardSamples  {@code shard.max.samples} of the throughput runs
 * @param sinkShardMib  shard sizes of P4
 * @param writers       shard writers of P4
 * @param sealAge       {@code shard.max.age.ms} of P2
 * @param sealRun       how long P2 publishes
 * @param sealRate      samples per second P2 publishes (slow enough that shards seal by age)
 * @param profileDir    where P1a/P1b write their CPU profile ({@code profile.md}); null for no profiling
 * @param consoleSamples samples of the dataset P6 (the web console's first page) is measured on
 * @param steadyBytes   tensor bytes through the pipeline in the timed part of the steady-state CPU figure
 * @param quotaCores    CPUs each service instance may use in P5 (a cgroup quota)
 * @param scaleOut      instance counts of P5, the first being the one the others are compared with
 * @param startRepeats  start-ups per service and JVM variant in the start-up figure
 */
public record BenchOptions(Set<String> figures, List<S3Kind> s3Kinds, List<SampleShape> shapes, long samples, long warmup,
                           int shardSamples, List<Integer> sinkShardMib, List<String> writers, Duration sealAge, Duration sealRun,
                           int sealRate, Path workDir, Path checkout, Path profileDir, long consoleSamples, long steadyBytes,
                           double quotaCores, List<Integer> scaleOut, int startRepeats) {

    /** Every figure id, in the order the suite runs them. */
    public static final List<String> FIGURES = List.of("p1", "bytes", "cpu", "p1a", "p1b", "p2", "p4", "p5", "start", "p3", "p6", "gw",
            "edge");

    public BenchOptions {
        for (String figure : figures) {
            if (!FIGURES.contains(figure)) {
                throw new IllegalArgumentException("unknown figure '" + figure + "', expected some of " + String.join(",", FIGURES));
            }
        }
        if (s3Kinds.isEmpty() || shapes.isEmpty()) {
            throw new IllegalArgumentException("at least one S3 server and one sample size are needed");
        }
        if (samples < 1 || warmup < 0 || shardSamples < 1 || sealRate < 1 || consoleSamples < 1 || steadyBytes < 1 || startRepeats < 1) {
            throw new IllegalArgumentException("sample counts and rates must be positive");
        }
        if (!(quotaCores > 0) || scaleOut.isEmpty() || scaleOut.stream().anyMatch(k -> k < 1)) {
            throw new IllegalArgumentException("the CPU quota and the scale-out instance counts must be positive");
        }
        scaleOut = List.copyOf(scaleOut);
    }

    public boolean runs(String figure) {
        return figures.isEmpty() || figures.contains(figure);
    }

    /** For the results file: what was measured, in words and numbers. */
    public Map<String, Object> describe() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("figures", figures.isEmpty() ? FIGURES : FIGURES.stream().filter(figures::contains).toList());
        settings.put("s3", s3Kinds.stream().map(kind -> kind.name().toLowerCase(Locale.ROOT)).toList());
        settings.put("sampleSizes", shapes.stream().map(shape -> shape.name() + " (" + shape.tensorBytes() + " tensor bytes)").toList());
        settings.put("samples12KB", samples);
        settings.put("warmupSamples", warmup);
        settings.put("shardMaxSamples", shardSamples);
        settings.put("sinkShardMib", sinkShardMib);
        settings.put("writers", writers);
        settings.put("sealMaxAgeMs", sealAge.toMillis());
        settings.put("sealRunSeconds", sealRun.toSeconds());
        settings.put("sealRatePerSecond", sealRate);
        settings.put("steadyStateBytes", steadyBytes);
        settings.put("scaleOutQuotaCores", quotaCores);
        settings.put("scaleOutInstances", scaleOut);
        settings.put("startRepeats", startRepeats);
        settings.put("profiled", profileDir != null);
        return settings;
    }

    /** The command that measures what this run measured, for the reports. */
    public String reproduce() {
        StringBuilder line = new StringBuilder("bin/shardflow bench");
        if (!figures.isEmpty()) {
            line.append(" --only ").append(String.join(",", FIGURES.stream().filter(figures::contains).toList()));
        }
        line.append(" --s3 ").append(String.join(",", s3Kinds.stream().map(kind -> kind.name().toLowerCase(Locale.ROOT)).toList()));
        line.append(String.format(Locale.ROOT, " --samples %d --warmup %d --steady-gb %s", samples, warmup,
                BigDecimal.valueOf(steadyBytes / 1e9).stripTrailingZeros().toPlainString()));
        if (runs("p5")) {
            line.append(String.format(Locale.ROOT, " --quota %s --scale-out %s", BigDecimal.valueOf(quotaCores).stripTrailingZeros().toPlainString(),
                    String.join(",", scaleOut.stream().map(String::valueOf).toList())));
        }
        return line.append(profileDir != null ? " --profile" : "").toString();
    }

    /** Samples of {@code shape} carrying the tensor bytes of {@link #samples} 12 KB samples. */
    public long samplesOf(SampleShape shape) {
        return shape.samplesFor(samples * SampleShape.SMALL.tensorBytes());
    }
}
