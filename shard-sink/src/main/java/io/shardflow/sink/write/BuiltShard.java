package io.shardflow.sink.write;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.shard.ShardImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An HDF5 shard, built, with the commit-log entry that will describe it and its page index
 * (dataset/FORMAT.md), which the uploader stores next to it. Its bytes are in {@code image} when it
 * was built in memory, else in {@code file} on local disk; {@code file} is also where an image goes
 * should it have to wait on disk ({@link #spilled}). An image holds its {@code memory} reservation
 * until it is freed.
 */
public record BuiltShard(ShardId id, Path file, ShardImage image, MemoryBudget.Reservation memory, ShardEntry entry,
        PageIndex pageIndex) {

    /** A shard built on disk. */
    public BuiltShard(ShardId id, Path file, ShardEntry entry, PageIndex pageIndex) {
        this(id, file, null, null, entry, pageIndex);
    }

    public boolean inMemory() {
        return image != null;
    }

    /**
     * The same shard with its bytes on disk and its memory freed: what waits for an object store
     * that is down, so an outage holds disk (bounded by the spool's budget) rather than memory.
     */
    public BuiltShard spilled() {
        if (image == null) {
            return this;
        }
        image.writeTo(file);
        image.close();
        memory.close();
        return new BuiltShard(id, file, entry, pageIndex);
    }

    /** Frees the image and deletes the local file, whichever the shard has; may be called again. */
    public void release() {
        if (image != null) {
            image.close();
            memory.close();
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + file, e);
        }
    }
}
