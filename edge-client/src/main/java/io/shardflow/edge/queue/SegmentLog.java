package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The queue's files, the I/O role of {@link DurableQueue} (docs/EDGE-QUEUE.md): the segments (oldest
 * first; appends go to the last), the done segments kept as spares for reuse, the open channel of the
 * active segment and the next seq to hand out. Not thread-safe: the queue calls it under its monitor.
 */
final class SegmentLog implements AutoCloseable {

    private final Path directory;
    private final FileSync sync;
    private final List<Segment> segments;
    /** Done segment files kept for reuse: overwriting allocated blocks syncs faster than growing a file. */
    private final List<Path> spares = new ArrayList<>();
    private final long cutBytes;
    private FileChannel active;
    private long nextSeq;

    /** Opens the directory's segments as recovery leaves them, entries up to {@code done} being done. */
    SegmentLog(Path directory, long done, FileSync sync) throws IOException {
        this.directory = directory;
        this.sync = sync;
        SegmentRecovery.Recovered found = SegmentRecovery.recover(directory, done);
        segments = new ArrayList<>(found.segments());
        cutBytes = found.cutBytes();
        nextSeq = found.nextSeq();
        active = FileChannel.open(last().path, StandardOpenOption.WRITE);
        try {
            // What a killed process wrote may still sit only in the page cache: synced before any of it is sent.
            sync.force(active);
        } catch (IOException e) {
            active.close();
            throw e;
        }
        try (Stream<Path> files = Files.list(directory)) {
            files.filter(p -> p.getFileName().toString().startsWith("spare-")).sorted().forEach(spares::add);
        }
    }

    Segment last() {
        return segments.get(segments.size() - 1);
    }

    List<Segment> segments() {
        return segments;
    }

    long nextSeq() {
        return nextSeq;
    }

    long cutBytes() {
        return cutBytes;
    }

    FileChannel active() {
        return active;
    }

    /** Writes one frame per payload after the active segment's entries; returns their seqs. */
    long[] write(List<byte[]> payloads, long nowMs) throws IOException {
        Segment last = last();
        long[] seqs = new long[payloads.size()];
        for (int i = 0; i < payloads.size(); i++) {
            byte[] payload = payloads.get(i);
            ByteBuffer[] frame = {SegmentFormat.frameHeader(nextSeq, nowMs, payload), ByteBuffer.wrap(payload)};
            long position = last.size;
            for (ByteBuffer part : frame) {
                while (part.hasRemaining()) {
                    position += active.write(part, position);
                }
            }
            last.size = position;
            seqs[i] = nextSeq++;
            last.endSeq = nextSeq;
        }
        return seqs;
    }

    /** Cuts the active segment back to {@code size} bytes, the next seq back to {@code seq}. */
    void undo(long size, long seq) throws IOException {
        active.truncate(size);
        Segment last = last();
        last.size = size;
        last.endSeq = seq;
        nextSeq = seq;
    }

    void force(FileChannel channel) throws IOException {
        sync.force(channel);
    }

    /** Cuts the active segment to its entries and syncs it (a reused file may hold old frames beyond). */
    void seal() throws IOException {
        active.truncate(last().size);
        sync.force(active);
    }

    /** Starts the next segment, in a spare file when there is one; on failure the old one stays active. */
    void startNext() throws IOException {
        Path spare = spares.isEmpty() ? null : spares.remove(spares.size() - 1);
        Segment created = SegmentRecovery.create(directory, nextSeq, spare);
        active.close();
        segments.add(created);
        active = FileChannel.open(created.path, StandardOpenOption.WRITE);
    }

    /** Bytes of every segment and spare file: what {@code maxBytes} bounds. */
    long diskBytes() {
        long spareBytes = 0;
        for (Path p : spares) {
            spareBytes += p.toFile().length();
        }
        return segments.stream().mapToLong(s -> s.size).sum() + spareBytes;
    }

    boolean dropSpare() throws IOException {
        if (spares.isEmpty()) {
            return false;
        }
        Files.deleteIfExists(spares.remove(spares.size() - 1));
        return true;
    }

    /** Removes a done segment (not the active one): kept as a spare while there are fewer than two and room. */
    void retire(Segment s, long maxBytes) throws IOException {
        if (spares.size() < 2 && diskBytes() + s.size <= maxBytes) {
            Path spare = directory.resolve(String.format("spare-%020d.log", s.firstSeq));
            Files.move(s.path, spare);
            spares.add(spare);
        } else {
            Files.delete(s.path);
        }
        segments.remove(s);
    }

    @Override
    public void close() throws IOException {
        active.close();
    }
}
