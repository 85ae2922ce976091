package io.shardflow.dataset.pages;

import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.util.Arrays;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores a shard's page index next to it, create-only (docs/ARCHITECTURE.md, invariant 3), after the
 * shard object itself: a commit entry then names an index only once both objects are durable.
 */
public final class PageIndexUpload {

    private static final Logger LOG = LoggerFactory.getLogger(PageIndexUpload.class);

    private PageIndexUpload() {
    }

    /**
     * Writes {@code index} (which must describe the stored shard object's bytes) at
     * {@link PageIndex#keyOf}{@code (shardKey)}. Returns the SHA-256 of the stored index, for the
     * shard's commit entry; empty when an object with other bytes is already there (written by a
     * writer with another page size, or damaged): the entry then names no index and readers of that
     * shard fall back to reading it whole, which loses nothing. Replays write identical bytes, so the
     * usual 412 is an identical object and is accepted.
     */
    public static Optional<String> publish(ObjectStore store, String shardKey, PageIndex index) {
        String key = PageIndex.keyOf(shardKey);
        byte[] bytes = PageIndexCodec.encode(index);
        String sha = ShardFileDigest.sha256Hex(bytes, 0, bytes.length);
        if (store.putIfAbsent(key, bytes) == PutOutcome.CREATED) {
            return Optional.of(sha);
        }
        Optional<byte[]> existing = store.get(key);
        if (existing.isPresent() && Arrays.equals(existing.get(), bytes)) {
            return Optional.of(sha);
        }
        LOG.warn("Page index {} already exists with other bytes than the index of the stored shard; committing the "
                + "shard without one (readers read it whole)", key);
        return Optional.empty();
    }
}
