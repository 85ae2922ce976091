package io.shardflow.reader;

import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.ObjectNotFoundException;
import io.shardflow.dataset.store.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serves ranged reads of a store's objects, recording each {@code (key, start, length)} and each
 * whole download; {@link #damage} flips a byte of an object in every read that covers it.
 */
final class RangeRecordingStore extends ForwardingObjectStore {

    record Range(String key, long start, long length) {
    }

    private final List<Range> ranges = new ArrayList<>();
    private final List<String> downloads = new ArrayList<>();
    private final Map<String, Set<Long>> damaged = new HashMap<>();

    RangeRecordingStore(ObjectStore delegate) {
        super(delegate);
    }

    synchronized void damage(String key, long offset) {
        damaged.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(offset);
    }

    synchronized List<Range> shardRanges() {
        return ranges.stream().filter(r -> r.key().endsWith(".h5")).toList();
    }

    synchronized List<String> downloads() {
        return List.copyOf(downloads);
    }

    synchronized void reset() {
        ranges.clear();
        downloads.clear();
    }

    @Override
    public InputStream getRange(String key, long offset, long length) {
        byte[] bytes = delegate.get(key).orElseThrow(() -> new ObjectNotFoundException("getRange", key));
        int from = (int) Math.min(bytes.length, offset);
        int to = (int) Math.min(bytes.length, offset + length);
        byte[] slice = java.util.Arrays.copyOfRange(bytes, from, to);
        synchronized (this) {
            ranges.add(new Range(key, offset, length));
            for (long at : damaged.getOrDefault(key, Set.of())) {
                if (at >= from && at < to) {
                    slice[(int) (at - from)] ^= (byte) 0xFF;
                }
            }
        }
        return new ByteArrayInputStream(slice);
    }

    @Override
    public void download(String key, Path target) {
        synchronized (this) {
            downloads.add(key);
        }
        super.download(key, target);
    }
}
