package io.shardflow.ingest.seal;

/**
 * What the seal policy may look at for one open shard: how much it holds and since when it has been
 * open (wall-clock epoch ms of its first sample, taken from the stream processor's clock).
 * {@code budgetBytes} is what counts against {@code shard.max.bytes}: tensor payload plus the UTF-8
 * bytes of attribute keys and values.
 */
public record ShardProgress(int sampleCount, long budgetBytes, long openedAtMillis) {

    public ShardProgress {
        if (sampleCount < 0 || budgetBytes < 0) {
            throw new IllegalArgumentException("negative shard progress: " + sampleCount + " samples, " + budgetBytes + " bytes");
        }
    }

    public ShardProgress plus(long sampleBytes) {
        return new ShardProgress(sampleCount + 1, budgetBytes + sampleBytes, openedAtMillis);
    }
}
