package io.shardflow.cli.bench;

/**
 * The sink's memory while it built one shard of {@code shardMib}: peak heap in use (garbage not yet
 * collected included) and peak resident set (VmHWM), or how it ended when it could not.
 *
 * @param outcome {@code ok}, {@code OutOfMemoryError}, or what else stopped the run
 */
public record MemoryPoint(String writer, int shardMib, String heapLimit, String outcome, Double peakHeapMb, Double peakRssMb) {

    public boolean completed() {
        return "ok".equals(outcome);
    }
}
