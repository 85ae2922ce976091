package io.shardflow.reader.pages;

import io.shardflow.dataset.log.ShardEntry;

/**
 * A page of a shard, fetched with a ranged GET, does not hash to what the shard's page index
 * (named by its commit entry) gives for it, twice in a row: the stored object is damaged there
 * (check it with {@code shardflow dataset verify}). Nothing of the page reached the HDF5 reader.
 */
public final class PageChecksumException extends RuntimeException {

    private final String shardId;
    private final int page;

    public PageChecksumException(ShardEntry shard, int page, long start, int length, String expected, String actual) {
        super("shard " + shard.shardId() + " (" + shard.objectKey() + ") failed verification of page " + page + " (bytes "
                + start + ".." + (start + length - 1) + "): its page index says sha256 " + expected
                + ", the bytes read have sha256 " + actual);
        this.shardId = shard.shardId();
        this.page = page;
    }

    public String shardId() {
        return shardId;
    }

    public int page() {
        return page;
    }
}
