package io.shardflow.reader;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rank's batches {@code 0, 1, 2, ...} of one epoch, made by {@code W} producer threads (the
 * workers of docs/READING-RULES.md, section 2: worker {@code w} makes batches {@code j mod W = w},
 * each on its own thread with its own downloads) and handed out in order, as a PyTorch DataLoader
 * takes them round robin from its workers. {@code W = 0}: the caller's thread makes every batch.
 *
 * <p>Each producer keeps at most {@value #QUEUED_PER_WORKER} finished batches waiting. An error in
 * a producer reaches the caller at the batch it was making, as the same exception. Used by one
 * consumer thread; {@link #close} stops the producers.
 */
final class OrderedBatches implements Iterator<List<ReadSample>>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OrderedBatches.class);
    private static final int QUEUED_PER_WORKER = 2;
    private static final long POLL_MILLIS = 500;
    private static final long JOIN_MILLIS = 10_000;

    /** A producer's error, queued in place of the batch it was making. */
    private record Failure(Throwable error) {
    }

    private final long batchCount;
    private final WorkerBatches inline;
    private final List<BlockingQueue<Object>> queues = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;
    private long next;

    OrderedBatches(MixedOrder order, RankShare share, int batchSize, int workers, Supplier<RowReader> rowReaders) {
        this.batchCount = share.batchCount(batchSize);
        if (workers == 0) {
            this.inline = new WorkerBatches(order, share, batchSize, 0, 0, rowReaders.get());
            return;
        }
        this.inline = null;
        for (int w = 0; w < workers; w++) {
            BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUED_PER_WORKER);
            int worker = w;
            Thread thread = new Thread(() -> produce(queue, order, share, batchSize, worker, workers, rowReaders),
                    "shardflow-batches-r" + share.rank() + "-w" + w);
            thread.setDaemon(true);
            queues.add(queue);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    /** Batches of this epoch left to hand out. */
    long remaining() {
        return batchCount - next;
    }

    @Override
    public boolean hasNext() {
        return next < batchCount && !closed;
    }

    @Override
    public List<ReadSample> next() {
        if (!hasNext()) {
            throw new NoSuchElementException(closed ? "the batches were closed" : "the epoch's " + batchCount + " batches are done");
        }
        WorkerBatches.Batch batch = inline != null ? inline.next() : take((int) (next % queues.size()));
        if (batch == null || batch.index() != next) {
            throw new IllegalStateException("batch " + next + " expected, producer gave " + (batch == null ? "none" : batch.index()));
        }
        next++;
        return batch.samples();
    }

    @Override
    public void close() {
        closed = true;
        if (inline != null) {
            inline.close();
        }
        threads.forEach(Thread::interrupt);
        for (Thread thread : threads) {
            try {
                thread.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (thread.isAlive()) {
                log.warn("Batch producer {} still running {} ms after close", thread.getName(), JOIN_MILLIS);
            }
        }
    }

    private WorkerBatches.Batch take(int worker) {
        BlockingQueue<Object> queue = queues.get(worker);
        try {
            while (true) {
                Object item = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (item instanceof Failure failure) {
                    close();
                    throw rethrown(failure.error());
                }
                if (item != null) {
                    return (WorkerBatches.Batch) item;
                }
                if (!threads.get(worker).isAlive() && queue.isEmpty()) {
                    throw new IllegalStateException("batch producer " + worker + " stopped before batch " + next);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for batch " + next, e);
        }
    }

    private void produce(BlockingQueue<Object> queue, MixedOrder order, RankShare share, int batchSize, int worker,
                         int workers, Supplier<RowReader> rowReaders) {
        try (WorkerBatches batches = new WorkerBatches(order, share, batchSize, worker, workers, rowReaders.get())) {
            for (WorkerBatches.Batch batch = batches.next(); batch != null && !closed; batch = batches.next()) {
                queue.put(batch);
            }
        } catch (InterruptedException e) {
            // closed: nobody waits for the rest
        } catch (Throwable error) {
            if (closed) {
                return; // an interrupted download or read on the way out
            }
            try {
                queue.put(new Failure(error));
            } catch (InterruptedException closedMeanwhile) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static RuntimeException rethrown(Throwable error) {
        if (error instanceof RuntimeException runtime) {
            return runtime;
        }
        if (error instanceof Error fatal) {
            throw fatal;
        }
        return new IllegalStateException("a batch producer failed", error);
    }
}
