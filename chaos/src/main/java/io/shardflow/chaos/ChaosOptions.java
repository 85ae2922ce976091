package io.shardflow.chaos;

import io.shardflow.stack.S3Kind;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a chaos run does.
 *
 * @param samples          samples to publish, each with a unique id
 * @param publishSpan      publishing is spread over this long (the faults too)
 * @param ingestKills      kill -9 of a random ingest-app instance, restarted after 1-5 s
 * @param sinkKills        kill -9 of a random shard-sink instance, restarted after 1-5 s
 * @param zombies          SIGSTOP of a shard-sink past its session timeout, then SIGCONT
 * @param s3Outages        S3 server stopped for {@code s3OutageLength}, then started
 * @param brokerRestarts   Kafka broker restarted, alternately kill -9 and graceful
 * @param brokerDownLength how long the broker stays down after a kill -9, before it is started again
 * @param crashPoints      where the shard-sinks crash on purpose ({@code --crash-points} of {@link io.shardflow.chaos.sink.FaultInjectingSinkApp})
 * @param freezePoints     where the shard-sinks freeze themselves on purpose ({@code --freeze-points})
 * @param sessionTimeout   consumer session timeout of every instance (a zombie is frozen longer)
 * @param drainTimeout     after publishing and faults, how long to wait for every acknowledged sample
 * @param shardSamples     ingest-app's shard.max.samples
 */
public record ChaosOptions(
        long samples,
        Duration publishSpan,
        int ingestKills,
        int sinkKills,
        int zombies,
        int s3Outages,
        Duration s3OutageLength,
        int brokerRestarts,
        Duration brokerDownLength,
        String crashPoints,
        String freezePoints,
        Duration sessionTimeout,
        Duration drainTimeout,
        int shardSamples,
        long seed,
        S3Kind s3Kind,
        Path workDir) {

    public ChaosOptions {
        if (samples < 1) {
            throw new IllegalArgumentException("samples must be >= 1");
        }
        if (ingestKills < 0 || sinkKills < 0 || zombies < 0 || s3Outages < 0 || brokerRestarts < 0) {
            throw new IllegalArgumentException("fault counts must be >= 0");
        }
        workDir = workDir.toAbsolutePath().normalize();
    }

    /** Publishing rate the span is sized for: light enough for two cores shared with the whole stack. */
    static final double SAMPLES_PER_SECOND = 150;

    /** The JUnit form: 20,000 samples, two faults of each kind, 10 s S3 outages; a few minutes on 2 cores. */
    public static ChaosOptions shortForm(Path workDir, long seed) {
        return new ChaosOptions(20_000, span(20_000, 2, 2, 2, 2, Duration.ofSeconds(10), 2), 2, 2, 2, 2, Duration.ofSeconds(10), 2,
                Duration.ofSeconds(2),
                "mid-spool:0.0001,before-upload:0.01,mid-upload:0.01,after-upload:0.012,after-commit:0.012",
                "after-upload:0.006", Duration.ofSeconds(6), Duration.ofSeconds(180), 256, seed, S3Kind.S3PROXY, workDir);
    }

    /** The documented long form: 100,000 samples, ten faults of each kind, 30 s S3 outages. */
    public static ChaosOptions longForm(Path workDir, long seed) {
        return new ChaosOptions(100_000, span(100_000, 10, 10, 10, 10, Duration.ofSeconds(30), 10), 10, 10, 10, 10,
                Duration.ofSeconds(30), 10, Duration.ofSeconds(2),
                "mid-spool:0.00004,before-upload:0.004,mid-upload:0.004,after-upload:0.005,after-commit:0.005",
                "after-upload:0.002", Duration.ofSeconds(6), Duration.ofSeconds(300), 256, seed, S3Kind.S3PROXY, workDir);
    }

    /**
     * A publishing span long enough for the samples at {@link #SAMPLES_PER_SECOND} and for each fault
     * track to fit its faults with room between them (a kill takes ~8 s with its restart, a zombie
     * ~15 s, an S3 outage its length plus ~8 s, a broker restart ~15 s).
     */
    public static Duration span(long samples, int ingestKills, int sinkKills, int zombies, int s3Outages,
                                Duration s3OutageLength, int brokerRestarts) {
        double publishing = samples / SAMPLES_PER_SECOND;
        double processTrack = (ingestKills + sinkKills) * 8 + zombies * 15;
        double infraTrack = s3Outages * (s3OutageLength.toSeconds() + 8) + brokerRestarts * 15;
        return Duration.ofSeconds((long) Math.ceil(Math.max(publishing, 1.3 * Math.max(processTrack, infraTrack))));
    }

    public double samplesPerSecond() {
        return samples / Math.max(1.0, publishSpan.toMillis() / 1000.0);
    }
}
