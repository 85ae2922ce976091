package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * When appends are durable, the state role of {@link DurableQueue} beside {@link DeliveryProgress}:
 * the last synced seq and the active segment's size at that sync, and group commit: one caller
 * forces the file, outside the monitor, for every entry written so far, while the others wait for
 * it. A failed sync cuts what was written since the last good one (its state on disk is unknown) and
 * fails every caller waiting for it (the epoch moves on). Fields are guarded by the queue's monitor.
 */
final class GroupCommit {

    private final Path directory;
    private final SegmentLog log;
    private final Object monitor;
    private long durable;
    private long durableSize;
    private boolean syncing;
    private long epoch;

    GroupCommit(Path directory, SegmentLog log, Object monitor) {
        this.directory = directory;
        this.log = log;
        this.monitor = monitor;
        durable = log.nextSeq() - 1;
        durableSize = log.last().size;
    }

    /** The last synced seq (under the monitor). */
    long durable() {
        return durable;
    }

    /** The epoch an append's callers wait in (under the monitor). */
    long epoch() {
        return epoch;
    }

    /** Returns once {@code seq} is durable, syncing for everyone if no one else is (not under the monitor). */
    void syncThrough(long seq, long myEpoch) throws IOException, InterruptedException {
        while (true) {
            FileChannel channel;
            long upto;
            long size;
            synchronized (monitor) {
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
                    monitor.wait();
                }
                syncing = true;
                upto = log.nextSeq() - 1;
                size = log.last().size;
                channel = log.active();
            }
            IOException failure = null;
            try {
                log.force(channel);
            } catch (IOException e) {
                failure = e;
            }
            synchronized (monitor) {
                syncing = false;
                monitor.notifyAll();
                if (failure != null) {
                    log.undo(durableSize, durable + 1);
                    epoch++;
                    throw new IOException("edge queue " + directory + ": sync failed (" + failure.getMessage()
                            + "); nothing of this call was queued", failure);
                }
                durable = Math.max(durable, upto);
                durableSize = size;
            }
        }
    }

    /** Seals the active segment (only the newest can have a torn tail) and starts the next (under the monitor). */
    void roll() throws IOException, InterruptedException {
        while (syncing) {
            monitor.wait();
        }
        log.seal();
        durable = log.nextSeq() - 1;
        durableSize = log.last().size;
        log.startNext();
        durableSize = log.last().size;
    }
}
