package io.shardflow.edge.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable offline queue, on the same files as the Python SDK's (docs/EDGE-QUEUE.md): appends
 * return once synced (one sync for all callers waiting at that moment), entries are marked done only
 * once the broker acknowledged them, whole segments go once every entry in them is done, and the
 * queue is bounded by the bytes of its files with a {@link Policy}. A failed write or sync (disk
 * full) throws with the files as they were before the call.
 */
public final class DurableQueue implements AutoCloseable {

    /** What a full queue does with a new entry. */
    public enum Policy { BLOCK, DROP_OLDEST, REJECT }

    /** @param segmentBytes 0 for the default, maxBytes / 8 between 1 and 64 MiB */
    public record Settings(long maxBytes, Policy policy, long segmentBytes, long blockTimeoutMs) {
        public static Settings defaults() {
            return new Settings(1L << 30, Policy.BLOCK, 0, 30_000);
        }

        long segmentSize() {
            long size = segmentBytes > 0 ? segmentBytes : Math.min(64L << 20, Math.max(1L << 20, maxBytes / 8));
            return Math.min(size, maxBytes / 4);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(DurableQueue.class);

    private final Path directory;
    private final Settings settings;
    private final Clock clock;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final String queueId;
    private final QueueCursor cursor;
    private final List<Segment> segments;
    private final List<Path> spares = new ArrayList<>();
    private final Set<Long> ackedAbove = new HashSet<>();
    private final long cutBytes;
    private FileChannel active;
    private long nextSeq;
    private long durable;
    private long durableSize;
    private boolean syncing;
    private long epoch;
    private long dropped;
    private long corrupt;
    private boolean closed;

    public DurableQueue(Path directory, Settings settings, Clock clock) throws IOException {
        this.directory = Files.createDirectories(directory);
        this.settings = settings;
        this.clock = clock;
        lockChannel = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        lock = lockChannel.tryLock();
        if (lock == null) {
            lockChannel.close();
            throw new QueueException("edge queue " + directory + " is open in another process");
        }
        queueId = QueueCursor.loadOrCreateId(directory);
        cursor = new QueueCursor(directory);
        cursor.sync(true);
        SegmentRecovery.Recovered found = SegmentRecovery.recover(directory, cursor.done());
        segments = new ArrayList<>(found.segments());
        cutBytes = found.cutBytes();
        nextSeq = found.nextSeq();
        durable = nextSeq - 1;
        Segment last = segments.get(segments.size() - 1);
        active = FileChannel.open(last.path, StandardOpenOption.WRITE);
        durableSize = last.size;
        try (Stream<Path> files = Files.list(directory)) {
            files.filter(p -> p.getFileName().toString().startsWith("spare-")).sorted().forEach(spares::add);
        }
    }

    public String queueId() {
        return queueId;
    }

    public long cutBytes() {
        return cutBytes;
    }

    /** Writes the entries (each {key, value}) and returns their seqs once they are durable. */
    public long[] append(List<byte[][]> entries) throws IOException, InterruptedException {
        long now = clock.millis();
        List<byte[]> payloads = entries.stream().map(e -> SegmentFormat.payload(e[0], e[1])).toList();
        long need = payloads.stream().mapToLong(p -> SegmentFormat.FRAME_HEADER_BYTES + (long) p.length).sum();
        long[] seqs = new long[payloads.size()];
        long myEpoch;
        synchronized (this) {
            checkOpen();
            makeRoom(need);
            Segment last = segments.get(segments.size() - 1);
            if (last.endSeq > last.firstSeq && last.size + need > settings.segmentSize()) {
                roll();
                last = segments.get(segments.size() - 1);
            }
            long startSize = last.size;
            long startSeq = nextSeq;
            try {
                for (int i = 0; i < payloads.size(); i++) {
                    byte[] payload = payloads.get(i);
                    ByteBuffer[] frame = {SegmentFormat.frameHeader(nextSeq, now, payload), ByteBuffer.wrap(payload)};
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
            } catch (IOException e) {
                undo(last, startSize, startSeq);
                throw new IOException("edge queue " + directory + ": cannot write " + need + " bytes (" + e.getMessage()
                        + "); nothing was queued", e);
            }
            myEpoch = epoch;
        }
        syncThrough(seqs[seqs.length - 1], myEpoch);
        return seqs;
    }

    private void undo(Segment last, long size, long seq) throws IOException {
        active.truncate(size);
        last.size = size;
        last.endSeq = seq;
        nextSeq = seq;
    }

    /** Group commit: one caller forces the file, outside the monitor, for every entry written so far. */
    private void syncThrough(long seq, long myEpoch) throws IOException, InterruptedException {
        while (true) {
            FileChannel channel;
            long upto;
            long size;
            synchronized (this) {
                while (true) {
                    if (durable >= seq) {
                        return;
                    }
                    if (epoch != myEpoch) {
                        throw new IOException("edge queue " + directory + ": sync failed; nothing of this call was queued");
                    }
                    if (!syncing) {
                        break;
                    }
                    wait();
                }
                syncing = true;
                upto = nextSeq - 1;
                size = segments.get(segments.size() - 1).size;
                channel = active;
            }
            IOException failure = null;
            try {
                channel.force(false);
            } catch (IOException e) {
                failure = e;
            }
            synchronized (this) {
                syncing = false;
                notifyAll();
                if (failure != null) {
                    // what was written since the last good sync is in doubt: cut it, fail its callers
                    undo(segments.get(segments.size() - 1), durableSize, durable + 1);
                    epoch++;
                    throw new IOException("edge queue " + directory + ": sync failed (" + failure.getMessage()
                            + "); nothing of this call was queued", failure);
                }
                durable = Math.max(durable, upto);
                durableSize = size;
            }
        }
    }

    private void roll() throws IOException, InterruptedException {
        while (syncing) {
            wait();
        }
        Segment last = segments.get(segments.size() - 1);
        active.truncate(last.size);
        active.force(false);
        durable = nextSeq - 1;
        durableSize = last.size;
        Path spare = spares.isEmpty() ? null : spares.remove(spares.size() - 1);
        Segment created = SegmentRecovery.create(directory, nextSeq, spare);
        active.close();
        segments.add(created);
        active = FileChannel.open(created.path, StandardOpenOption.WRITE);
        durableSize = created.size;
    }

    public synchronized long bytesOnDisk() {
        return diskBytes();
    }

    private long diskBytes() {
        long spareBytes = 0;
        for (Path p : spares) {
            spareBytes += p.toFile().length();
        }
        return segments.stream().mapToLong(s -> s.size).sum() + spareBytes;
    }

    private void makeRoom(long need) throws IOException, InterruptedException {
        if (need > settings.maxBytes() / 2) {
            throw new QueueException("an append of " + need + " bytes is over half the queue's maxBytes (" + settings.maxBytes() + ")");
        }
        long deadline = System.nanoTime() + settings.blockTimeoutMs() * 1_000_000L;
        while (diskBytes() + need > settings.maxBytes()) {
            if (!spares.isEmpty()) {
                Files.deleteIfExists(spares.remove(spares.size() - 1));
            } else if (!reclaim() && !(settings.policy() == Policy.DROP_OLDEST && dropOldest())) {
                long left = deadline - System.nanoTime();
                if (settings.policy() != Policy.BLOCK || left <= 0) {
                    throw new QueueException("edge queue " + directory + " holds " + diskBytes() + " bytes of maxBytes "
                            + settings.maxBytes() + " (policy " + settings.policy() + "); " + need + " more do not fit");
                }
                wait(Math.max(1, Math.min(left / 1_000_000L, 1000)));
                checkOpen();
            }
        }
    }

    private boolean reclaim() throws IOException, InterruptedException {
        long done = cursor.done();
        Segment last = segments.get(segments.size() - 1);
        if (segments.size() == 1 && last.endSeq > last.firstSeq && last.endSeq - 1 <= done) {
            roll();
        }
        List<Segment> doomed = segments.subList(0, segments.size() - 1).stream().filter(s -> s.endSeq - 1 <= done).toList();
        if (doomed.isEmpty()) {
            return false;
        }
        cursor.sync(false); // never delete entries the durable cursor does not yet cover
        for (Segment s : doomed) {
            if (spares.size() < 2 && diskBytes() + s.size <= settings.maxBytes()) {
                Path spare = directory.resolve(String.format("spare-%020d.log", s.firstSeq));
                Files.move(s.path, spare);
                spares.add(spare);
            } else {
                Files.delete(s.path);
            }
            segments.remove(s);
        }
        return true;
    }

    private boolean dropOldest() throws IOException, InterruptedException {
        if (segments.size() == 1) {
            Segment last = segments.get(0);
            if (last.endSeq == last.firstSeq) {
                return false;
            }
            roll();
        }
        Segment oldest = segments.get(0);
        long count = Math.max(0, oldest.endSeq - Math.max(oldest.firstSeq, cursor.done() + 1));
        dropped += count;
        LOG.warn("edge queue {} full (maxBytes {}): dropping {} oldest entries, seqs up to {}", directory, settings.maxBytes(), count,
                oldest.endSeq - 1);
        advance(oldest.endSeq - 1);
        return reclaim();
    }

    /** The broker acknowledged {@code seq}: the done cursor moves over every contiguous acknowledged seq. */
    public synchronized void ack(long seq) {
        if (closed || seq <= cursor.done()) {
            return;
        }
        ackedAbove.add(seq);
        moveDone();
    }

    /** Entries the reader cannot read back (bad CRC in a synced segment): counted as lost. */
    synchronized void skipCorrupt(long from, long to) {
        long start = Math.max(from, cursor.done() + 1);
        LOG.error("edge queue {}: entries {}..{} are corrupt on disk and cannot be sent", directory, from, to - 1);
        for (long s = start; s < to; s++) {
            ackedAbove.add(s);
            corrupt++;
        }
        moveDone();
    }

    private void moveDone() {
        long done = cursor.done();
        while (ackedAbove.contains(done + 1)) {
            done++;
        }
        if (done > cursor.done()) {
            try {
                advance(done);
                if (segments.size() > 1 && segments.get(0).endSeq - 1 <= done) {
                    reclaim();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("edge queue " + directory + ": cannot move the done cursor", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            notifyAll();
        }
    }

    private void advance(long done) throws IOException {
        cursor.advance(done);
        ackedAbove.removeIf(s -> s <= done);
    }

    synchronized void sealActive(long firstSeq) throws IOException, InterruptedException {
        if (segments.get(segments.size() - 1).firstSeq == firstSeq) {
            roll();
        }
    }

    public synchronized long doneSeq() {
        return cursor.done();
    }

    public synchronized long durableSeq() {
        return durable;
    }

    /** Entries queued and not yet done. */
    public synchronized long pending() {
        return durable - cursor.done();
    }

    public synchronized long dropped() {
        return dropped;
    }

    public synchronized long corrupt() {
        return corrupt;
    }

    synchronized List<Segment> segments() {
        return segments.stream().map(Segment::copy).toList();
    }

    /** Waits up to {@code timeoutMs} for an entry after {@code seq} to be durable; returns the durable seq. */
    synchronized long awaitDurableAfter(long seq, long timeoutMs) throws InterruptedException {
        if (durable <= seq && !closed && timeoutMs > 0) {
            wait(timeoutMs);
        }
        return durable;
    }

    public Path directory() {
        return directory;
    }

    private void checkOpen() {
        if (closed) {
            throw new QueueException("edge queue " + directory + " is closed");
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        notifyAll();
        active.close();
        cursor.close();
        lock.release();
        lockChannel.close();
    }
}
