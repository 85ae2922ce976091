package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.ShardId;

/** ShardEntry fixtures. */
public final class ShardEntries {

    private ShardEntries() {
    }

    /** An entry for lane/sequence whose sha256 is derived from {@code contentSeed}: same seed, same "bytes". */
    public static ShardEntry entry(String dataset, String version, int lane, long sequence, int contentSeed) {
        String sha = String.format("%064x", (long) contentSeed * 1_000_003L + lane * 7919L + sequence);
        return ShardEntry.of(new ShardId(dataset, version, lane, sequence), 10 + lane, 1000L + sequence, sha,
                "f".repeat(64), 1_000L * sequence, 1_000L * sequence + 999);
    }

    public static ShardEntry entry(int lane, long sequence) {
        return entry("d", "v1", lane, sequence, 0);
    }
}
