package io.shardflow.ingest.seal;

/**
 * What the seal policy may look at for one open shard: how much it holds and since when it has been
 * open (wall-clock epoch ms of its first sample, taken from the stream processor's clock).
 */
public record ShardProgress(int sampleCount, long payloadBytes, long openedAtMillis) {

    public ShardProgress {
        if (sampleCount < 0 || payloadBytes < 0) {
            throw new IllegalArgumentException("negative shard progress: " + sampleCount + " samples, " + payloadBytes + " bytes");
        }
    }

    public ShardProgress plus(long sampleBytes) {
        return new ShardProgress(sampleCount + 1, payloadBytes + sampleBytes, openedAtMillis);
    }
}
