package io.shardflow.gateway.http;

import io.shardflow.gateway.parse.BadRequest;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The floor on how fast a request body must arrive ({@code request.min.data.rate}), so a client
 * trickling a body cannot hold a thread and its memory reservation for long. The rate is the
 * average since the gateway began reading the body, and it is only judged after
 * {@code request.min.data.rate.grace.ms}: a small body whose bytes come a few milliseconds after its
 * headers, or a phone whose radio wakes up slowly, is never refused for a rate computed over an
 * instant. (Jetty's own floor counts from the headers with no grace, so a two-byte body that
 * arrived 3 ms late was "under 1024 B/s".) A body already here whole is never refused.
 */
public final class BodyPace {

    private final long minBytesPerSecond;
    private final long graceNanos;
    private final LongSupplier nanoTime;

    /** @param minBytesPerSecond 0 for no floor */
    public BodyPace(long minBytesPerSecond, Duration grace, LongSupplier nanoTime) {
        this.minBytesPerSecond = minBytesPerSecond;
        this.graceNanos = grace.toNanos();
        this.nanoTime = nanoTime;
    }

    /** When reading a body starts. */
    long now() {
        return nanoTime.getAsLong();
    }

    /** Refuses (408) a body still arriving whose average rate since {@code startedNanos} is under the floor past the grace. */
    void check(long bytesSoFar, long startedNanos) {
        if (minBytesPerSecond <= 0) {
            return;
        }
        long elapsed = nanoTime.getAsLong() - startedNanos;
        if (elapsed <= graceNanos) {
            return;
        }
        double rate = bytesSoFar / (elapsed / 1e9);
        if (rate < minBytesPerSecond) {
            throw new BadRequest(408, "BODY_TOO_SLOW", String.format("the body arrived at %.0f bytes/s over %.1f s, under the floor of %d"
                    + " bytes/s (request.min.data.rate); retry the same request", rate, elapsed / 1e9, minBytesPerSecond));
        }
    }
}
