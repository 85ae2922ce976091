package io.shardflow.gateway.publish;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory the requests in hand may hold, in bytes. A request reserves its share before it reads
 * its body and gives it back when it has answered; one that would pass the bound is answered 503
 * at once instead of waiting, so a flood of large requests meets Retry-After, never an
 * OutOfMemoryError (docs/ARCHITECTURE.md, invariant 7).
 */
public final class InflightBudget {

    private final long maxBytes;
    private final AtomicLong reserved = new AtomicLong();

    public InflightBudget(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Reserves {@code bytes}, or returns false and reserves nothing when the budget would be passed. */
    public boolean tryReserve(long bytes) {
        while (true) {
            long now = reserved.get();
            if (now + bytes > maxBytes) {
                return false;
            }
            if (reserved.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    public void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    public long reservedBytes() {
        return reserved.get();
    }

    public long maxBytes() {
        return maxBytes;
    }
}
