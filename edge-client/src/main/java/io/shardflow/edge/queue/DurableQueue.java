package io.shardflow.edge.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable offline queue, on the same files as the Python SDK's (docs/EDGE-QUEUE.md): appends
 * return once synced (one sync for all callers waiting at that moment), entries are marked done only
 * once the broker acknowledged them, whole segments go once every entry in them is done, and the
 * queue is bounded by the bytes of its files with a {@link Policy}. A failed write or sync (disk
 * full, EIO) throws with the files as they were before the call. This class is the API over its
 * roles: the files ({@link SegmentLog}), the bound and its policy ({@link QueueBound}), the state of
 * syncs ({@link GroupCommit}) and of delivery ({@link DeliveryProgress}).
 */
public final class DurableQueue implements AutoCloseable {

    /** What a full queue does with a new entry. */
    public enum Policy { BLOCK, DROP_OLDEST, REJECT }

    /**
     * @param segmentBytes    0 for the default, maxBytes / 8 between 1 and 64 MiB
     * @param resendHorizonMs an entry that may have reached the broker before and was queued longer ago
     *                        than this is set aside, never sent again (docs/EDGE-QUEUE.md, Resend horizon)
     */
    public record Settings(long maxBytes, Policy policy, long segmentBytes, long blockTimeoutMs, long resendHorizonMs) {

        /** The default resend horizon: well inside ingest-app's {@code queue.sequence.horizon.ms} (30 days). */
        public static final long RESEND_HORIZON_MS = Duration.ofDays(7).toMillis();

        public Settings {
            if (resendHorizonMs <= 0) {
                throw new IllegalArgumentException("resendHorizonMs must be positive");
            }
        }

        public Settings(long maxBytes, Policy policy, long segmentBytes, long blockTimeoutMs) {
            this(maxBytes, policy, segmentBytes, blockTimeoutMs, RESEND_HORIZON_MS);
        }

        public static Settings defaults() {
            return new Settings(1L << 30, Policy.BLOCK, 0, 30_000);
        }

        long segmentSize() {
            long size = segmentBytes > 0 ? segmentBytes : Math.min(64L << 20, Math.max(1L << 20, maxBytes / 8));
            return Math.min(size, maxBytes / 4);
        }
    }

    /** How far the attempted mark runs ahead of what the sender produced (the Python SDK's ATTEMPT_STRIDE). */
    static final long ATTEMPT_STRIDE = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(DurableQueue.class);

    private final Path directory;
    private final Settings settings;
    private final Clock clock;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final String queueId;
    private final SegmentLog log;
    private final QueueBound bound;
    private final DeliveryProgress progress;
    private final GroupCommit commit;
    private boolean closed;

    public DurableQueue(Path directory, Settings settings, Clock clock) throws IOException {
        this(directory, settings, clock, FileSync.DATA);
    }

    DurableQueue(Path directory, Settings settings, Clock clock, FileSync sync) throws IOException {
        this.directory = Files.createDirectories(directory);
        this.settings = settings;
        this.clock = clock;
        lockChannel = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        lock = lockChannel.tryLock();
        if (lock == null) {
            lockChannel.close();
            throw new QueueException("edge queue " + directory + " is open in another process");
        }
        QueueCursor cursor = null;
        SegmentLog opened = null;
        try {
            queueId = QueueCursor.loadOrCreateId(directory);
            cursor = new QueueCursor(directory, QueueCursor.CURSOR_FILE);
            cursor.sync(true);
            opened = new SegmentLog(directory, cursor.done(), sync);
            progress = new DeliveryProgress(cursor, directory, opened.nextSeq());
        } catch (IOException | RuntimeException e) {
            // a queue that cannot open leaves nothing held: the next try must find the lock free
            closeQuietly(opened, e);
            closeQuietly(cursor, e);
            lock.release();
            lockChannel.close();
            throw e;
        }
        log = opened;
        commit = new GroupCommit(directory, log, this);
        bound = new QueueBound(directory, settings, log, cursor, commit::roll, progress::advance, this);
    }

    public String queueId() {
        return queueId;
    }

    public long cutBytes() {
        return log.cutBytes();
    }

    Settings settings() {
        return settings;
    }

    /** Writes the entries (each {key, value}) and returns their seqs once they are durable. */
    public long[] append(List<byte[][]> entries) throws IOException, InterruptedException {
        long now = clock.millis();
        List<byte[]> payloads = entries.stream().map(e -> SegmentFormat.payload(e[0], e[1])).toList();
        long need = payloads.stream().mapToLong(p -> SegmentFormat.FRAME_HEADER_BYTES + (long) p.length).sum();
        long[] seqs;
        long myEpoch;
        synchronized (this) {
            checkOpen();
            bound.makeRoom(need, this::checkOpen);
            Segment last = log.last();
            if (last.endSeq > last.firstSeq && last.size + need > settings.segmentSize()) {
                commit.roll();
            }
            long startSize = log.last().size;
            long startSeq = log.nextSeq();
            try {
                seqs = log.write(payloads, now);
            } catch (IOException e) {
                log.undo(startSize, startSeq);
                throw new IOException("edge queue " + directory + ": cannot write " + need + " bytes (" + e.getMessage()
                        + "); nothing was queued", e);
            }
            myEpoch = commit.epoch();
        }
        commit.syncThrough(seqs[seqs.length - 1], myEpoch);
        return seqs;
    }

    public synchronized long bytesOnDisk() {
        return log.diskBytes();
    }

    /** The broker acknowledged {@code seq}: the done cursor moves over every contiguous acknowledged seq. */
    public synchronized void ack(long seq) {
        if (!closed && progress.acknowledge(seq)) {
            afterDoneMoved();
        }
    }

    /** Entries the reader cannot read back (bad CRC in a synced segment): counted as lost. */
    synchronized void skipCorrupt(long from, long to) {
        LOG.error("edge queue {}: entries {}..{} are corrupt on disk and cannot be sent", directory, from, to - 1);
        if (progress.skipCorrupt(from, to)) {
            afterDoneMoved();
        }
    }

    /** Once the done cursor moved: segments wholly done go, and waiters (a blocked append) look again. */
    private void afterDoneMoved() {
        try {
            if (log.segments().size() > 1 && log.segments().get(0).endSeq - 1 <= progress.done()) {
                bound.reclaim();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("edge queue " + directory + ": cannot delete done segments", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        notifyAll();
    }

    synchronized void sealActive(long firstSeq) throws IOException, InterruptedException {
        if (log.last().firstSeq == firstSeq) {
            commit.roll();
        }
    }

    /** The highest seq the sender may ever have produced (file {@code attempted}). */
    public synchronized long attemptedSeq() {
        return progress.attempted();
    }

    /**
     * Raises the attempted mark to {@code seq} and up to {@link #ATTEMPT_STRIDE} synced entries beyond
     * and syncs it; the sender calls it before it produces {@code seq}. Returns the mark.
     */
    synchronized long markAttempted(long seq) throws IOException {
        return progress.markAttempted(Math.max(seq, Math.min(commit.durable(), seq + ATTEMPT_STRIDE - 1)));
    }

    public synchronized long doneSeq() {
        return progress.done();
    }

    public synchronized long durableSeq() {
        return commit.durable();
    }

    /** Entries queued and not yet done. */
    public synchronized long pending() {
        return commit.durable() - progress.done();
    }

    public synchronized long dropped() {
        return bound.dropped();
    }

    public synchronized long corrupt() {
        return progress.corrupt();
    }

    synchronized List<Segment> segments() {
        return log.segments().stream().map(Segment::copy).toList();
    }

    /** Waits up to {@code timeoutMs} for an entry after {@code seq} to be durable; returns the durable seq. */
    synchronized long awaitDurableAfter(long seq, long timeoutMs) throws InterruptedException {
        if (commit.durable() <= seq && !closed && timeoutMs > 0) {
            wait(timeoutMs);
        }
        return commit.durable();
    }

    public Path directory() {
        return directory;
    }

    private static void closeQuietly(AutoCloseable resource, Exception cause) {
        if (resource != null) {
            try {
                resource.close();
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
        }
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
        log.close();
        progress.close();
        lock.release();
        lockChannel.close();
    }
}
