package io.shardflow.sink.write;

import java.util.function.LongConsumer;

/**
 * The native memory that shards built in memory may hold at once, all build threads together
 * ({@code build.memory.budget.bytes}). A shard reserves what it will need before it starts and is
 * built on disk when that does not fit, so the budget trades CPU for memory, never correctness.
 */
public final class MemoryBudget {

    private final long capacity;
    private final LongConsumer reservedNow;
    private long reserved;

    /** @param capacity bytes; 0 builds every shard on disk */
    public MemoryBudget(long capacity) {
        this(capacity, bytes -> { });
    }

    /** @param reservedNow told the bytes reserved after every change (a gauge) */
    public MemoryBudget(long capacity, LongConsumer reservedNow) {
        if (capacity < 0) {
            throw new IllegalArgumentException("a memory budget cannot be negative: " + capacity);
        }
        this.capacity = capacity;
        this.reservedNow = reservedNow;
    }

    /** A reservation of {@code bytes}, or null when they do not fit beside what is reserved already. */
    public synchronized Reservation tryReserve(long bytes) {
        if (bytes < 0 || bytes > capacity - reserved) {
            return null;
        }
        reserved += bytes;
        reservedNow.accept(reserved);
        return new Reservation(bytes);
    }

    public synchronized long reserved() {
        return reserved;
    }

    public long capacity() {
        return capacity;
    }

    private synchronized void giveBack(long bytes) {
        reserved -= bytes;
        reservedNow.accept(reserved);
    }

    /** Bytes held for one shard; closing gives them back (once, however often it is called). */
    public final class Reservation implements AutoCloseable {

        private long bytes;

        private Reservation(long bytes) {
            this.bytes = bytes;
        }

        /** Gives back what is held beyond {@code remaining} bytes (a build's peak once its image alone is left). */
        public void shrinkTo(long remaining) {
            synchronized (MemoryBudget.this) {
                if (remaining < bytes) {
                    giveBack(bytes - remaining);
                    bytes = remaining;
                }
            }
        }

        @Override
        public void close() {
            shrinkTo(0);
        }
    }
}
