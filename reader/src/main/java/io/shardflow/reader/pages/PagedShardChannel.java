package io.shardflow.reader.pages;

import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/** A read-only channel over {@link VerifiedPages}, for jHDF's {@code HdfFile(SeekableByteChannel, URI)}. */
public final class PagedShardChannel implements SeekableByteChannel {

    private final VerifiedPages pages;
    private long position;
    private boolean open = true;

    public PagedShardChannel(VerifiedPages pages) {
        this.pages = pages;
    }

    /** Fills {@code dst} (or reads to the end of the shard): jHDF reads a buffer in one call. */
    @Override
    public synchronized int read(ByteBuffer dst) {
        if (position >= pages.size()) {
            return dst.hasRemaining() ? -1 : 0;
        }
        int n = pages.read(position, dst);
        position += n;
        return n;
    }

    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public synchronized long position() {
        return position;
    }

    @Override
    public synchronized SeekableByteChannel position(long newPosition) {
        if (newPosition < 0) {
            throw new IllegalArgumentException("position " + newPosition);
        }
        position = newPosition;
        return this;
    }

    @Override
    public long size() {
        return pages.size();
    }

    @Override
    public SeekableByteChannel truncate(long size) {
        throw new NonWritableChannelException();
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    @Override
    public synchronized void close() {
        open = false;
    }
}
