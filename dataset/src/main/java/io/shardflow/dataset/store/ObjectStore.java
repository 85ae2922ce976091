package io.shardflow.dataset.store;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The few object-store operations shardflow needs. Writes are create-only (docs/ARCHITECTURE.md, invariant 3): nothing
 * is ever overwritten or deleted through this interface.
 *
 * <p>All methods throw {@link ObjectStoreException} (unchecked) on failure.
 */
public interface ObjectStore {

    /** Creates {@code key} from the file's bytes unless it already exists. */
    PutOutcome putIfAbsent(String key, Path file);

    /**
     * As {@link #putIfAbsent(String, Path)}, for a file whose SHA-256 (lowercase hex) the caller has
     * computed already, as the shard writer does in its one read of a shard: a store that signs
     * requests by payload hash sends this one instead of hashing the file again, and may have the
     * server check the bytes against it. By default the hash is not used.
     */
    default PutOutcome putIfAbsent(String key, Path file, String sha256Hex) {
        return putIfAbsent(key, file);
    }

    /** Creates {@code key} with these bytes unless it already exists. */
    PutOutcome putIfAbsent(String key, byte[] bytes);

    /**
     * As {@link #putIfAbsent(String, Path, String)} for a file's bytes in memory (the buffer's position
     * to its limit, left unmoved), e.g. a shard the sink built there. By default they are copied and
     * put as a byte array; a store that can send a buffer overrides it.
     */
    default PutOutcome putIfAbsent(String key, ByteBuffer bytes, String sha256Hex) {
        byte[] copy = new byte[bytes.remaining()];
        bytes.duplicate().get(copy);
        return putIfAbsent(key, copy);
    }

    /** The object's bytes, or empty if there is no such object. Meant for small objects (specs, commit entries). */
    Optional<byte[]> get(String key);

    /** Streams the object to {@code target}, replacing it. Throws {@link ObjectNotFoundException} if missing. */
    void download(String key, Path target);

    /**
     * Bytes {@code offset .. offset + length} of the object (fewer if it ends sooner), as a stream
     * the caller closes. Throws {@link ObjectNotFoundException} if missing. Readers fetch big shards
     * as several ranges at once; this fallback reads the whole object, stores that can read a range
     * override it.
     */
    default InputStream getRange(String key, long offset, long length) {
        byte[] bytes = get(key).orElseThrow(() -> new ObjectNotFoundException("getRange", key));
        int from = (int) Math.min(bytes.length, offset);
        return new ByteArrayInputStream(bytes, from, (int) Math.min(bytes.length - from, length));
    }

    Optional<ObjectInfo> head(String key);

    /**
     * Keys under {@code prefix} in lexical order, strictly after {@code startAfter} (null: from the
     * start), at most {@code maxKeys} of them. Fewer than {@code maxKeys} means the listing is done.
     */
    List<String> list(String prefix, String startAfter, int maxKeys);

    /**
     * The immediate "sub-directories" of {@code prefix} (delimiter '/'), as full prefixes ending in
     * '/', e.g. {@code datasets/mnist/}. For the catalog only: the data path never lists.
     */
    List<String> listPrefixes(String prefix);

    /**
     * Objects under {@code prefix} with size and last-modified time, in key order, strictly after
     * {@code startAfter} (null: from the start), at most {@code maxKeys}. For garbage collection,
     * which must find what the log no longer names; the data path never lists.
     */
    List<StoredObject> listObjects(String prefix, String startAfter, int maxKeys);

    /** Deletes {@code key}; no error when it does not exist. Garbage collection only. */
    void delete(String key);

    /** Creates the bucket if it does not exist. */
    void ensureBucket();
}
