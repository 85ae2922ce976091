package io.shardflow.reader.pages;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The pages of one shard, fetched on demand with ranged GETs (a run of missing pages in one GET)
 * and each checked against the shard's page index before it is kept or used (dataset/FORMAT.md,
 * "Page index"). A page that fails is fetched once more (a transfer error is not a damaged
 * object); failing again throws {@link PageChecksumException}.
 */
public final class VerifiedPages {

    private final ObjectStore store;
    private final ShardEntry shard;
    private final PageIndex index;
    private final PageCache cache;
    private final PageFetchStats stats;
    /** The last page that failed: jHDF reports a failed read without its cause ("Failed to read chunk ..."). */
    private volatile PageChecksumException failure;

    public VerifiedPages(ObjectStore store, ShardEntry shard, PageIndex index, PageCache cache, PageFetchStats stats) {
        this.store = Objects.requireNonNull(store, "store");
        this.shard = Objects.requireNonNull(shard, "shard");
        this.index = Objects.requireNonNull(index, "index");
        this.cache = Objects.requireNonNull(cache, "cache");
        this.stats = Objects.requireNonNull(stats, "stats");
    }

    public long size() {
        return shard.bytes();
    }

    /** {@code error} as the damaged page behind it, if a page of this shard failed verification; else itself. */
    public RuntimeException explain(RuntimeException error) {
        PageChecksumException page = failure;
        return page != null ? page : error;
    }

    /** Copies bytes from {@code position} into {@code dst} until it is full or the shard ends; returns the count. */
    public int read(long position, ByteBuffer dst) {
        long end = Math.min(size(), position + dst.remaining());
        if (end <= position) {
            return 0;
        }
        int first = index.pageOf(position);
        int last = index.pageOf(end - 1);
        fetchMissing(first, last);
        int copied = 0;
        for (int page = first; page <= last; page++) {
            byte[] data = page(page);
            int from = page == first ? (int) (position - index.pageStart(page)) : 0;
            int to = page == last ? (int) (end - index.pageStart(page)) : data.length;
            dst.put(data, from, to - from);
            copied += to - from;
        }
        return copied;
    }

    /**
     * Keeps {@code data}, fetched before the index was known (page 0 is fetched alongside the index),
     * if it is exactly page {@code page}; returns whether it was.
     */
    public boolean accept(int page, byte[] data) {
        if (page >= index.pageCount() || data.length != index.pageLength(page)
                || !ShardFileDigest.sha256Hex(data, 0, data.length).equals(index.pages().get(page))) {
            return false;
        }
        cache.put(shard.sha256(), page, data);
        stats.pagesVerified.incrementAndGet();
        return true;
    }

    private byte[] page(int page) {
        byte[] data = cache.get(shard.sha256(), page);
        return data != null ? data : fetch(page, page)[0]; // dropped by a small cache meanwhile
    }

    private void fetchMissing(int first, int last) {
        int runStart = -1;
        for (int page = first; page <= last + 1; page++) {
            boolean missing = page <= last && cache.get(shard.sha256(), page) == null;
            if (missing && runStart < 0) {
                runStart = page;
            } else if (!missing && runStart >= 0) {
                fetch(runStart, page - 1);
                runStart = -1;
            }
        }
    }

    /** Pages {@code first..last} in one ranged GET, each verified, then cached. */
    private byte[][] fetch(int first, int last) {
        long start = index.pageStart(first);
        long end = index.pageStart(last) + index.pageLength(last);
        byte[] bytes = get(start, (int) (end - start));
        byte[][] pages = new byte[last - first + 1][];
        for (int page = first; page <= last; page++) {
            int offset = (int) (index.pageStart(page) - start);
            byte[] data = java.util.Arrays.copyOfRange(bytes, offset, offset + index.pageLength(page));
            String expected = index.pages().get(page);
            if (!ShardFileDigest.sha256Hex(data, 0, data.length).equals(expected)) {
                data = get(index.pageStart(page), index.pageLength(page));
                String actual = ShardFileDigest.sha256Hex(data, 0, data.length);
                if (!actual.equals(expected)) {
                    failure = new PageChecksumException(shard, page, index.pageStart(page), data.length, expected, actual);
                    throw failure;
                }
            }
            cache.put(shard.sha256(), page, data);
            pages[page - first] = data;
        }
        stats.pagesVerified.addAndGet(last - first + 1);
        return pages;
    }

    private byte[] get(long start, int length) {
        stats.pageGets.incrementAndGet();
        stats.pageBytes.addAndGet(length);
        return readRange(store, shard, start, length);
    }

    /** Bytes {@code start .. start + length} of the shard object in one ranged GET, not verified. */
    public static byte[] readRange(ObjectStore store, ShardEntry shard, long start, int length) {
        try (InputStream in = store.getRange(shard.objectKey(), start, length)) {
            byte[] bytes = in.readNBytes(length);
            if (bytes.length != length) {
                throw new IllegalStateException("shard " + shard.shardId() + " (" + shard.objectKey() + ") ended after "
                        + (start + bytes.length) + " bytes, the commit log says " + shard.bytes());
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bytes " + start + ".." + (start + length - 1) + " of "
                    + shard.objectKey(), e);
        }
    }
}
