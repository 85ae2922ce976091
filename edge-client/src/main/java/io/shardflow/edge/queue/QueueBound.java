package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy role of {@link DurableQueue}: its bound ({@code maxBytes}, counting segment and spare
 * files) and what a full queue does: {@link DurableQueue.Policy#BLOCK BLOCK}, {@code DROP_OLDEST} or
 * {@code REJECT} (docs/EDGE-QUEUE.md). Every method runs under the queue's monitor, the one
 * {@code BLOCK} waits on.
 */
final class QueueBound {

    /** The queue's roll: seals the active segment (its state included) and starts the next. */
    @FunctionalInterface
    interface Roll {
        void roll() throws IOException, InterruptedException;
    }

    /** The queue's move of its done cursor (dropped entries count as done). */
    @FunctionalInterface
    interface Advance {
        void advance(long done) throws IOException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(QueueBound.class);

    private final Path directory;
    private final DurableQueue.Settings settings;
    private final SegmentLog log;
    private final QueueCursor cursor;
    private final Roll roll;
    private final Advance advance;
    private final Object monitor;
    private long dropped;

    QueueBound(Path directory, DurableQueue.Settings settings, SegmentLog log, QueueCursor cursor, Roll roll, Advance advance,
               Object monitor) {
        this.directory = directory;
        this.settings = settings;
        this.log = log;
        this.cursor = cursor;
        this.roll = roll;
        this.advance = advance;
        this.monitor = monitor;
    }

    long dropped() {
        return dropped;
    }

    /** Makes room for {@code need} more bytes as the policy says, or throws {@link QueueException}. */
    void makeRoom(long need, Runnable checkOpen) throws IOException, InterruptedException {
        if (need > settings.maxBytes() / 2) {
            throw new QueueException("an append of " + need + " bytes is over half the queue's maxBytes (" + settings.maxBytes() + ")");
        }
        long deadline = System.nanoTime() + settings.blockTimeoutMs() * 1_000_000L;
        while (log.diskBytes() + need > settings.maxBytes()) {
            if (log.dropSpare() || reclaim() || (settings.policy() == DurableQueue.Policy.DROP_OLDEST && dropOldest())) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (settings.policy() != DurableQueue.Policy.BLOCK || left <= 0) {
                throw new QueueException("edge queue " + directory + " holds " + log.diskBytes() + " bytes of maxBytes "
                        + settings.maxBytes() + " (policy " + settings.policy() + "); " + need + " more do not fit");
            }
            monitor.wait(Math.max(1, Math.min(left / 1_000_000L, 1000)));
            checkOpen.run();
        }
    }

    /** Deletes (or keeps as spares) the segments wholly done; rolls a wholly done active segment so it can go too. */
    boolean reclaim() throws IOException, InterruptedException {
        long done = cursor.done();
        List<Segment> segments = log.segments();
        Segment last = log.last();
        if (segments.size() == 1 && last.endSeq > last.firstSeq && last.endSeq - 1 <= done) {
            roll.roll();
        }
        List<Segment> doomed = segments.subList(0, segments.size() - 1).stream().filter(s -> s.endSeq - 1 <= done).toList();
        if (doomed.isEmpty()) {
            return false;
        }
        cursor.sync(false); // never delete entries the durable cursor does not yet cover
        for (Segment s : doomed) {
            log.retire(s, settings.maxBytes());
        }
        return true;
    }

    private boolean dropOldest() throws IOException, InterruptedException {
        if (log.segments().size() == 1) {
            Segment last = log.last();
            if (last.endSeq == last.firstSeq) {
                return false;
            }
            roll.roll();
        }
        Segment oldest = log.segments().get(0);
        long count = Math.max(0, oldest.endSeq - Math.max(oldest.firstSeq, cursor.done() + 1));
        dropped += count;
        LOG.warn("edge queue {} full (maxBytes {}): dropping {} oldest entries, seqs up to {}", directory, settings.maxBytes(), count,
                oldest.endSeq - 1);
        advance.advance(oldest.endSeq - 1);
        return reclaim();
    }
}
