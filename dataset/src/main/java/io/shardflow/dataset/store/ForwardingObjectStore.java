package io.shardflow.dataset.store;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Forwards every call to another store. A base for decorators that change one operation: the
 * sink's fault injection, and tests that simulate races, lost responses and outages.
 */
public class ForwardingObjectStore implements ObjectStore {

    protected final ObjectStore delegate;

    public ForwardingObjectStore(ObjectStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file) {
        return delegate.putIfAbsent(key, file);
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file, String sha256Hex) {
        return delegate.putIfAbsent(key, file, sha256Hex);
    }

    @Override
    public PutOutcome putIfAbsent(String key, byte[] bytes) {
        return delegate.putIfAbsent(key, bytes);
    }

    @Override
    public PutOutcome putIfAbsent(String key, ByteBuffer bytes, String sha256Hex) {
        return delegate.putIfAbsent(key, bytes, sha256Hex);
    }

    @Override
    public Optional<byte[]> get(String key) {
        return delegate.get(key);
    }

    @Override
    public void download(String key, Path target) {
        delegate.download(key, target);
    }

    @Override
    public InputStream getRange(String key, long offset, long length) {
        return delegate.getRange(key, offset, length);
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        return delegate.head(key);
    }

    @Override
    public List<String> list(String prefix, String startAfter, int maxKeys) {
        return delegate.list(prefix, startAfter, maxKeys);
    }

    @Override
    public List<String> listPrefixes(String prefix) {
        return delegate.listPrefixes(prefix);
    }

    @Override
    public void ensureBucket() {
        delegate.ensureBucket();
    }

    @Override
    public List<StoredObject> listObjects(String prefix, String startAfter, int maxKeys) {
        return delegate.listObjects(prefix, startAfter, maxKeys);
    }

    @Override
    public void delete(String key) {
        delegate.delete(key);
    }
}
