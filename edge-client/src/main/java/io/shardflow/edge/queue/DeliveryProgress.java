package io.shardflow.edge.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The delivery state of {@link DurableQueue}: the done cursor (every entry at or below it is
 * acknowledged or dropped), the acknowledgements above it not yet contiguous, the entries lost to
 * corruption, and the attempted mark (docs/EDGE-QUEUE.md). Not thread-safe: the queue calls it under
 * its monitor.
 */
final class DeliveryProgress implements AutoCloseable {

    private final QueueCursor cursor;
    private final QueueCursor attempted;
    private final Set<Long> ackedAbove = new HashSet<>();
    private long corrupt;

    /** @param nextSeq the queue's next seq: a queue from before the mark counts everything in it as maybe sent */
    DeliveryProgress(QueueCursor cursor, Path directory, long nextSeq) throws IOException {
        this.cursor = cursor;
        attempted = new QueueCursor(directory, QueueCursor.ATTEMPTED_FILE);
        if (!attempted.existed() && nextSeq > 1) {
            attempted.advance(nextSeq - 1);
            attempted.sync(false);
        }
    }

    long done() {
        return cursor.done();
    }

    long corrupt() {
        return corrupt;
    }

    /** Records an acknowledged seq; returns whether the done cursor moved. */
    boolean acknowledge(long seq) {
        if (seq <= cursor.done()) {
            return false;
        }
        ackedAbove.add(seq);
        return moveDone();
    }

    /** Counts {@code from..to-1} as lost to corruption and done; returns whether the done cursor moved. */
    boolean skipCorrupt(long from, long to) {
        for (long s = Math.max(from, cursor.done() + 1); s < to; s++) {
            ackedAbove.add(s);
            corrupt++;
        }
        return moveDone();
    }

    private boolean moveDone() {
        long done = cursor.done();
        while (ackedAbove.contains(done + 1)) {
            done++;
        }
        if (done == cursor.done()) {
            return false;
        }
        try {
            advance(done);
        } catch (IOException e) {
            throw new UncheckedIOException("edge queue: cannot move the done cursor", e);
        }
        return true;
    }

    void advance(long done) throws IOException {
        cursor.advance(done);
        ackedAbove.removeIf(s -> s <= done);
    }

    long attempted() {
        return attempted.done();
    }

    /** Raises the attempted mark to {@code target} and syncs it, before any seq up to it is produced. */
    long markAttempted(long target) throws IOException {
        if (target > attempted.done()) {
            attempted.advance(target);
            attempted.sync(false);
        }
        return attempted.done();
    }

    @Override
    public void close() throws IOException {
        try {
            cursor.close();
        } finally {
            attempted.close();
        }
    }
}
