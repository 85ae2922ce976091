package io.shardflow.ingest.lane;

import io.shardflow.ingest.seal.ShardProgress;

/**
 * State of one shard lane, i.e. one (dataset, version) within one input partition. A lane has at
 * most one open shard; {@code sequence} is the sequence of the open shard, or of the next shard to
 * open when {@code sampleCount} is zero. Kept in a changelogged store, so under exactly-once the
 * sequence never repeats and never skips after a crash.
 *
 * @param payloadBytes tensor bytes of the open shard, as the seal marker reports them
 * @param budgetBytes  tensor plus attribute bytes, what the seal policy measures
 */
public record LaneState(long sequence, int sampleCount, long payloadBytes, long budgetBytes, long openedAtMillis,
                        String specFingerprint) {

    public static LaneState fresh() {
        return new LaneState(0L, 0, 0L, 0L, 0L, "");
    }

    public boolean hasOpenShard() {
        return sampleCount > 0;
    }

    public ShardProgress progress() {
        return new ShardProgress(sampleCount, budgetBytes, openedAtMillis);
    }

    /** Adds one sample, opening the shard at {@code nowMillis} if none is open. */
    public LaneState add(long samplePayloadBytes, long sampleBudgetBytes, long nowMillis, String fingerprint) {
        long openedAt = hasOpenShard() ? openedAtMillis : nowMillis;
        return new LaneState(sequence, sampleCount + 1, payloadBytes + samplePayloadBytes, budgetBytes + sampleBudgetBytes,
                openedAt, fingerprint);
    }

    /** Closes the open shard: the next sample opens shard {@code sequence + 1}. */
    public LaneState sealed() {
        return new LaneState(sequence + 1, 0, 0L, 0L, 0L, "");
    }
}
