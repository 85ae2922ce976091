package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;

/**
 * A shard's bytes do not hash to the SHA-256 the commit log records for it. The bad file has been
 * removed from the cache, so a new attempt downloads the shard again.
 */
public class ChecksumMismatchException extends RuntimeException {

    private final String shardId;
    private final String expectedSha256;
    private final String actualSha256;
    private final boolean cachedCopy;

    public ChecksumMismatchException(ShardEntry shard, String actualSha256, boolean cachedCopy) {
        super((cachedCopy ? "cached copy of shard " : "downloaded shard ") + shard.shardId() + " (" + shard.objectKey()
                + ") has sha256 " + actualSha256 + " but the commit log says " + shard.sha256() + "; "
                + (cachedCopy ? "the local file was corrupted and has been removed, reading again downloads it afresh"
                        : "the object in the store does not match its commit entry (the file was removed); "
                        + "check it with 'shardflow dataset verify'"));
        this.shardId = shard.shardId();
        this.expectedSha256 = shard.sha256();
        this.actualSha256 = actualSha256;
        this.cachedCopy = cachedCopy;
    }

    public String shardId() {
        return shardId;
    }

    public String expectedSha256() {
        return expectedSha256;
    }

    public String actualSha256() {
        return actualSha256;
    }

    /** True when a file already in the local cache was bad; false when a fresh download was. */
    public boolean cachedCopy() {
        return cachedCopy;
    }
}
