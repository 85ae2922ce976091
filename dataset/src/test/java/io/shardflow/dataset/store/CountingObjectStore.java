package io.shardflow.dataset.store;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts requests per operation, as an S3 server would see them, to assert how many a caller makes. */
public class CountingObjectStore extends ForwardingObjectStore {

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    public CountingObjectStore(ObjectStore delegate) {
        super(delegate);
    }

    /** Requests of all kinds since the last reset. */
    public int total() {
        return counts.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** Requests of one kind: putIfAbsent, get, download, head, list, listPrefixes, ensureBucket. */
    public int count(String operation) {
        AtomicInteger count = counts.get(operation);
        return count == null ? 0 : count.get();
    }

    /** Counts by operation, sorted, for assertion messages. */
    public Map<String, Integer> snapshot() {
        Map<String, Integer> out = new TreeMap<>();
        counts.forEach((op, n) -> out.put(op, n.get()));
        return out;
    }

    public void reset() {
        counts.clear();
    }

    private void count(String operation, int n) {
        counts.computeIfAbsent(operation, k -> new AtomicInteger()).addAndGet(n);
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file) {
        count("putIfAbsent", 1);
        return delegate.putIfAbsent(key, file);
    }

    @Override
    public PutOutcome putIfAbsent(String key, byte[] bytes) {
        count("putIfAbsent", 1);
        return delegate.putIfAbsent(key, bytes);
    }

    @Override
    public Optional<byte[]> get(String key) {
        count("get", 1);
        return delegate.get(key);
    }

    @Override
    public void download(String key, Path target) {
        count("download", 1);
        delegate.download(key, target);
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        count("head", 1);
        return delegate.head(key);
    }

    /** One request per 1,000 keys asked for, as S3 pages listings. */
    @Override
    public List<String> list(String prefix, String startAfter, int maxKeys) {
        List<String> keys = delegate.list(prefix, startAfter, maxKeys);
        count("list", Math.max(1, (keys.size() + 999) / 1000));
        return keys;
    }

    @Override
    public List<String> listPrefixes(String prefix) {
        count("listPrefixes", 1);
        return delegate.listPrefixes(prefix);
    }

    @Override
    public void ensureBucket() {
        count("ensureBucket", 1);
        delegate.ensureBucket();
    }
}
