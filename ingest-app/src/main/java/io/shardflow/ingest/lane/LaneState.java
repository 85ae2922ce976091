package io.shardflow.ingest.lane;

import io.shardflow.ingest.seal.ShardProgress;

/**
 * State of one shard lane, i.e. one (dataset, version) within one input partition. A lane has at
 * most one open shard; {@code sequence} is the sequence of the open shard, or of the next shard to
 * open when {@code sampleCount} is zero. Kept in a changelogged store, so under exactly-once the
 * sequence never repeats and never skips after a crash.
 */
public record LaneState(long sequence, int sampleCount, long payloadBytes, long openedAtMillis, String specFingerprint) {

    public static LaneState fresh() {
        return new LaneState(0L, 0, 0L, 0L, "");
    }

    public boolean hasOpenShard() {
        return sampleCount > 0;
    }

    public ShardProgress progress() {
        return new ShardProgress(sampleCount, payloadBytes, openedAtMillis);
    }

    /** Adds one sample, opening the shard at {@code nowMillis} if none is open. */
    public LaneState add(long sampleBytes, long nowMillis, String fingerprint) {
        long openedAt = hasOpenShard() ? openedAtMillis : nowMillis;
        return new LaneState(sequence, sampleCount + 1, payloadBytes + sampleBytes, openedAt, fingerprint);
    }

    /** Closes the open shard: the next sample opens shard {@code sequence + 1}. */
    public LaneState sealed() {
        return new LaneState(sequence + 1, 0, 0L, 0L, "");
    }
}
