package io.shardflow.reader.pages;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Verified shard pages in memory, keyed by shard SHA-256 and page number, least recently used
 * dropped once they pass {@code maxBytes}. Thread-safe; one instance serves all shards of a reader.
 */
public final class PageCache {

    private record Key(String shardSha256, int page) {
    }

    private final long maxBytes;
    private final LinkedHashMap<Key, byte[]> pages = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;

    public PageCache(long maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("page cache size must be >= 0 bytes, got " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    public synchronized byte[] get(String shardSha256, int page) {
        return pages.get(new Key(shardSha256, page));
    }

    public synchronized void put(String shardSha256, int page, byte[] data) {
        if (pages.putIfAbsent(new Key(shardSha256, page), data) != null) {
            return;
        }
        bytes += data.length;
        Iterator<Map.Entry<Key, byte[]>> eldest = pages.entrySet().iterator();
        while (bytes > maxBytes && pages.size() > 1 && eldest.hasNext()) {
            bytes -= eldest.next().getValue().length;
            eldest.remove();
        }
    }

    public synchronized long bytes() {
        return bytes;
    }
}
