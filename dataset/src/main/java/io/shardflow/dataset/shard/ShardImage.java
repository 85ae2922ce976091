package io.shardflow.dataset.shard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.bytedeco.javacpp.BytePointer;

/**
 * A finished shard file held in native memory instead of on local disk: what the sink hashes and
 * uploads when a shard is small enough to build in memory (docs/ARCHITECTURE.md § 4). A file on
 * disk costs a write into the page cache, a read back to hash it, another to upload it and an
 * unlink; the image costs one copy out of the library. Close it to free the memory.
 */
public final class ShardImage implements AutoCloseable {

    private final BytePointer memory;
    private final int size;
    private boolean closed;

    /** Takes ownership of {@code memory}, whose first {@code size} bytes are the file. */
    ShardImage(BytePointer memory, long size) {
        if (size < 0 || size > Integer.MAX_VALUE - 8) {
            memory.close();
            throw new IllegalArgumentException("a shard image holds at most 2 GiB, this one " + size + " bytes");
        }
        this.memory = memory;
        this.size = (int) size;
    }

    public long size() {
        return size;
    }

    /** The file's bytes, read-only, positioned at 0; a new view on each call, so readers do not share a position. */
    public ByteBuffer bytes() {
        if (closed) {
            throw new IllegalStateException("the shard image was closed");
        }
        return memory.position(0).limit(size).asByteBuffer().asReadOnlyBuffer();
    }

    /** Writes the file to {@code target} (replacing it), e.g. to keep a shard whose upload failed off the heap's budget. */
    public void writeTo(Path target) {
        try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer bytes = bytes();
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write shard image to " + target, e);
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            memory.close();
        }
    }
}
