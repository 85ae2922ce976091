package io.shardflow.sink.write;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.PageIndexUpload;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.retry.Retrier;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uploads a shard create-only. When the object already exists (a replay after a crash, or another
 * instance that got there first) the stored object is fetched and checked: the same bytes mean the
 * work was already done. Different bytes with the same rows can happen when the stored file was
 * written on another platform (the HDF5 writer records OS and architecture in the file); then the
 * stored object wins and its checksum is what gets committed. Different rows mean the
 * deterministic-shard invariant is broken, which stops the sink rather than being papered over.
 */
public final class ShardUploader {

    private static final Logger LOG = LoggerFactory.getLogger(ShardUploader.class);

    private final ObjectStore store;
    private final Retrier retrier;
    private final Path workDir;
    private final ShardReader reader = new ShardReader();

    public ShardUploader(ObjectStore store, Retrier retrier, Path workDir) {
        this.store = store;
        this.retrier = retrier;
        this.workDir = workDir;
    }

    /**
     * Uploads the shard if it is not there yet, then its page index; returns the entry that describes
     * the stored object (naming its page index once that is stored too).
     */
    public ShardEntry upload(BuiltShard shard) {
        String key = shard.entry().objectKey();
        PutOutcome outcome = retrier.call("upload " + key, () -> shard.inMemory()
                ? store.putIfAbsent(key, shard.image().bytes(), shard.entry().sha256())
                : store.putIfAbsent(key, shard.file(), shard.entry().sha256()));
        if (outcome == PutOutcome.CREATED) {
            return withPageIndex(shard.entry(), shard.pageIndex());
        }
        Path existing = workDir.resolve(shard.file().getFileName() + ".existing");
        try {
            retrier.call("download " + key, () -> {
                store.download(key, existing);
                return null;
            });
            ShardFileDigest stored = ShardFileDigest.of(existing, shard.pageIndex().pageSize());
            if (stored.sha256().equals(shard.entry().sha256())) {
                LOG.info("shard {} was already uploaded with identical bytes", key);
                return withPageIndex(shard.entry(), shard.pageIndex());
            }
            ShardContents storedRows = reader.read(existing);
            if (shard.inMemory()) {
                shard.image().writeTo(shard.file()); // the reader takes a file; released with the shard
            }
            ShardContents ourRows = reader.read(shard.file());
            if (!storedRows.equals(ourRows)) {
                throw new ShardMismatchException("shard object " + key + " already exists with different rows (sha256 "
                        + stored.sha256() + ", replay has " + shard.entry().sha256() + ")");
            }
            LOG.warn("shard {} already exists with the same rows but other bytes (written on another platform?); "
                    + "committing the stored object's checksum {}", key, stored.sha256());
            ShardEntry e = shard.entry();
            ShardEntry storedEntry = new ShardEntry(e.shardId(), e.objectKey(), e.lane(), e.sequence(), e.sampleCount(),
                    stored.bytes(), stored.sha256(), e.specFingerprint(), e.firstProducedAt(), e.lastProducedAt());
            return withPageIndex(storedEntry, stored.pageIndex());
        } finally {
            deleteQuietly(existing);
        }
    }

    /**
     * Stores the page index of the stored shard object (after the shard, so an entry names an index
     * only when both are durable) and names it in the entry; an index already there with other bytes
     * leaves the entry without one (PageIndexUpload).
     */
    private ShardEntry withPageIndex(ShardEntry entry, PageIndex index) {
        String indexKey = PageIndex.keyOf(entry.objectKey());
        return entry.withPageIndex(retrier.call("upload " + indexKey,
                () -> PageIndexUpload.publish(store, entry.objectKey(), index)).orElse(null));
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The stored object holds other rows than the shard this sink rebuilt. */
    public static final class ShardMismatchException extends IllegalStateException {
        public ShardMismatchException(String message) {
            super(message);
        }
    }
}
