package io.shardflow.cli.bench;

import io.shardflow.stack.S3Kind;
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
 */
public record BenchOptions(Set<String> figures, List<S3Kind> s3Kinds, List<SampleShape> shapes, long samples, long warmup,
                           int shardSamples, List<Integer> sinkShardMib, List<String> writers, Duration sealAge, Duration sealRun,
                           int sealRate, Path workDir, Path checkout, Path profileDir, long consoleSamples) {

    /** Every figure id, in the order the suite runs them. */
    public static final List<String> FIGURES = List.of("p1", "bytes", "p1a", "p1b", "p2", "p4", "p5", "p3", "p6", "gw", "edge");

    public BenchOptions {
        for (String figure : figures) {
            if (!FIGURES.contains(figure)) {
                throw new IllegalArgumentException("unknown figure '" + figure + "', expected some of " + String.join(",", FIGURES));
            }
        }
        if (s3Kinds.isEmpty() || shapes.isEmpty()) {
            throw new IllegalArgumentException("at least one S3 server and one sample size are needed");
        }
        if (samples < 1 || warmup < 0 || shardSamples < 1 || sealRate < 1 || consoleSamples < 1) {
            throw new IllegalArgumentException("sample counts and rates must be positive");
        }
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
        settings.put("profiled", profileDir != null);
        return settings;
    }

    /** Samples of {@code shape} carrying the tensor bytes of {@link #samples} 12 KB samples. */
    public long samplesOf(SampleShape shape) {
        return shape.samplesFor(samples * SampleShape.SMALL.tensorBytes());
    }
}
