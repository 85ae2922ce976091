package io.shardflow.sink.write;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.retry.Retrier;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.shard.ShardDigest;
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

    /** Uploads the shard if it is not there yet; returns the entry that describes the stored object. */
    public ShardEntry upload(BuiltShard shard) {
        String key = shard.entry().objectKey();
        PutOutcome outcome = retrier.call("upload " + key, () -> store.putIfAbsent(key, shard.file()));
        if (outcome == PutOutcome.CREATED) {
            return shard.entry();
        }
        Path existing = workDir.resolve(shard.file().getFileName() + ".existing");
        try {
            retrier.call("download " + key, () -> {
                store.download(key, existing);
                return null;
            });
            String stored = ShardDigest.sha256(existing);
            if (stored.equals(shard.entry().sha256())) {
                LOG.info("shard {} was already uploaded with identical bytes", key);
                return shard.entry();
            }
            ShardContents storedRows = reader.read(existing);
            ShardContents ourRows = reader.read(shard.file());
            if (!storedRows.equals(ourRows)) {
                throw new ShardMismatchException("shard object " + key + " already exists with different rows (sha256 "
                        + stored + ", replay has " + shard.entry().sha256() + ")");
            }
            LOG.warn("shard {} already exists with the same rows but other bytes (written on another platform?); "
                    + "committing the stored object's checksum {}", key, stored);
            ShardEntry e = shard.entry();
            return new ShardEntry(e.shardId(), e.objectKey(), e.lane(), e.sequence(), e.sampleCount(), Files.size(existing),
                    stored, e.specFingerprint(), e.firstProducedAt(), e.lastProducedAt());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            deleteQuietly(existing);
        }
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
