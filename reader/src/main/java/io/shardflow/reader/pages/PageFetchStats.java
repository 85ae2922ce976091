package io.shardflow.reader.pages;

import java.util.concurrent.atomic.AtomicLong;

/** What random access fetched: ranged GETs of pages and their bytes, page indexes, whole shards. */
public final class PageFetchStats {

    final AtomicLong pageGets = new AtomicLong();
    final AtomicLong pageBytes = new AtomicLong();
    final AtomicLong pagesVerified = new AtomicLong();
    final AtomicLong indexGets = new AtomicLong();
    final AtomicLong wholeShards = new AtomicLong();

    public long pageGets() {
        return pageGets.get();
    }

    public long pageBytes() {
        return pageBytes.get();
    }

    public long pagesVerified() {
        return pagesVerified.get();
    }

    public long indexGets() {
        return indexGets.get();
    }

    /** Shards read whole (no usable page index) for random access. */
    public long wholeShards() {
        return wholeShards.get();
    }

    public void countIndexGet() {
        indexGets.incrementAndGet();
    }

    public void countWholeShard() {
        wholeShards.incrementAndGet();
    }

    @Override
    public String toString() {
        return "pageGets=" + pageGets + " pageBytes=" + pageBytes + " pagesVerified=" + pagesVerified + " indexGets="
                + indexGets + " wholeShards=" + wholeShards;
    }
}
