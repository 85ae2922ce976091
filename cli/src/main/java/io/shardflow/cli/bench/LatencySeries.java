package io.shardflow.cli.bench;

import java.util.List;

/**
 * Seal latencies of one run (first sample of a shard to the snapshot that holds it visible), kept
 * whole so the CDF can be plotted and recomputed.
 */
public record LatencySeries(String label, String s3, long maxAgeMillis, List<Long> millis) {

    public LatencySeries {
        millis = millis.stream().sorted().toList();
    }

    public double p50() {
        return Percentiles.of(millis, 50);
    }

    public double p99() {
        return Percentiles.of(millis, 99);
    }
}
