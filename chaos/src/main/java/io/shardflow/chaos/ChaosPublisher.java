package io.shardflow.chaos;

import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes samples 0..n-1 at a steady rate and records every sample id the broker acknowledged.
 * A send that fails (broker restarting, delivery timeout) is sent again with the same id and the
 * same content until it is acknowledged, as a careful edge device would; a copy that reached the
 * topic although its send failed is the duplicate ingest-app must drop. The acknowledged set is
 * the expected content of the dataset.
 */
final class ChaosPublisher implements AutoCloseable {

    /** produced-at of sample n is BASE + n ms, so every copy of a sample is identical. */
    static final long BASE_MILLIS = 1_750_000_000_000L;
    private static final int MAX_IN_FLIGHT = 5_000;

    private final EdgePublisher publisher;
    private final SyntheticSamples samples;
    private final long total;
    private final double perSecond;
    private final BitSet acked = new BitSet();
    private final BitSet everSent = new BitSet();
    private final Deque<Long> retries = new ArrayDeque<>();
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final AtomicLong sends = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;
    private volatile boolean done;

    ChaosPublisher(EdgePublisher publisher, SyntheticSamples samples, long total, double perSecond) {
        this.publisher = publisher;
        this.samples = samples;
        this.total = total;
        this.perSecond = perSecond;
        this.thread = new Thread(this::run, "chaos-publisher");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long started = System.nanoTime();
        for (long n = 0; n < total && !stopped; n++) {
            long due = started + (long) (n / perSecond * 1e9);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                sleepNanos(wait);
            }
            send(n);
            resendFailed();
        }
        while (!stopped && !allAcked()) {
            publisher.flush();
            sleepNanos(TimeUnit.MILLISECONDS.toNanos(500));
            resendFailed();
        }
        done = true;
    }

    private void resendFailed() {
        while (true) {
            Long n;
            synchronized (this) {
                n = retries.poll();
            }
            if (n == null) {
                return;
            }
            send(n);
        }
    }

    private void send(long n) {
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        synchronized (this) {
            everSent.set((int) n);
        }
        sends.incrementAndGet();
        try {
            publisher.publish(samples.sample(n, Instant.ofEpochMilli(BASE_MILLIS + n))).whenComplete((metadata, error) -> {
                if (error == null) {
                    synchronized (this) {
                        acked.set((int) n);
                    }
                } else {
                    failed(n);
                }
                inFlight.release();
            });
        } catch (RuntimeException e) {
            // max.block.ms passed while the broker was away, or the registry did not answer
            failed(n);
            inFlight.release();
        }
    }

    private void failed(long n) {
        failures.incrementAndGet();
        synchronized (this) {
            retries.add(n);
        }
    }

    private synchronized boolean allAcked() {
        return acked.cardinality() == total;
    }

    /** Waits until every sample is acknowledged; false on timeout. */
    boolean awaitAcknowledged(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        return done;
    }

    synchronized long published() {
        return everSent.cardinality();
    }

    synchronized long acknowledgedCount() {
        return acked.cardinality();
    }

    /** Ids the broker acknowledged. */
    synchronized Set<String> acknowledged() {
        Set<String> ids = new HashSet<>();
        acked.stream().forEach(n -> ids.add(samples.sampleId(n)));
        return ids;
    }

    /** Ids sent but never acknowledged: each may or may not be in the dataset, at most once. */
    synchronized Set<String> unacknowledged() {
        BitSet open = (BitSet) everSent.clone();
        open.andNot(acked);
        Set<String> ids = new HashSet<>();
        open.stream().forEach(n -> ids.add(samples.sampleId(n)));
        return ids;
    }

    long sends() {
        return sends.get();
    }

    long failures() {
        return failures.get();
    }

    @Override
    public void close() {
        stopped = true;
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        publisher.close();
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
