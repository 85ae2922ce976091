package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which queued entries the sender may no longer send, as the Python SDK decides
 * (python/shardflow/edge/horizon.py, docs/EDGE-QUEUE.md, Resend horizon). ingest-app forgets a
 * queue's position after {@code queue.sequence.horizon.ms} without a record of it; a resend after
 * that would be taken as new. An entry that may have reached the broker before (at or below the
 * attempted mark found at start, or produced earlier by this process) is sent again only if it was
 * queued less than the horizon ago; otherwise it is set aside in {@code expired/<seq>.record} (key,
 * newline, value), counted and logged, and marked done. A first attempt is sent whatever its age,
 * once the attempted mark durably covers it. Entries left in flight longer than the horizon end the
 * session ({@link #overdue}), so the Kafka client cannot deliver them late.
 */
final class ResendHorizon {

    /** A device clock this far behind an entry's queue time cannot tell the entry's age. */
    static final long CLOCK_SLACK_MS = Duration.ofDays(1).toMillis();
    private static final Logger LOG = LoggerFactory.getLogger(ResendHorizon.class);

    private final DurableQueue queue;
    private final long horizonMs;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final long before;
    private final Set<Long> overdue = new HashSet<>();
    private long marked;
    private long produced;
    private volatile long expired;

    ResendHorizon(DurableQueue queue, long horizonMs, Clock clock, LongSupplier nanoTime) {
        this.queue = queue;
        this.horizonMs = horizonMs;
        this.clock = clock;
        this.nanoTime = nanoTime;
        this.before = queue.attemptedSeq();
        this.marked = before;
    }

    long expired() {
        return expired;
    }

    /** True: produce the entry. False: it was set aside and marked done. */
    boolean admit(SegmentFormat.Frame frame) throws IOException {
        if (frame.seq() <= before || frame.seq() <= produced) {
            long age = clock.millis() - frame.timeMs();
            String why = null;
            if (overdue.contains(frame.seq())) {
                why = "it was in flight longer than the resend horizon";
            } else if (age > horizonMs) {
                why = String.format("it was queued %.1f days ago, over the resend horizon of %.1f days", age / 86_400_000.0,
                        horizonMs / 86_400_000.0);
            } else if (age < -CLOCK_SLACK_MS) {
                why = String.format("the device clock reads %.1f days before the entry was queued, so its age is unknown",
                        -age / 86_400_000.0);
            }
            if (why != null) {
                setAside(frame, why);
                return false;
            }
        }
        if (frame.seq() > marked) {
            marked = queue.markAttempted(frame.seq());
        }
        produced = Math.max(produced, frame.seq());
        return true;
    }

    /**
     * True if the oldest entry in flight ({@code firstProduced}: seq to when this process first
     * produced it, by {@code nanoTime}) was produced longer than the horizon ago; every entry in flight
     * is then remembered as overdue and the session must end.
     */
    boolean overdue(Set<Long> inFlight, Map<Long, Long> firstProduced) {
        long now = nanoTime.getAsLong();
        long oldest = inFlight.stream().mapToLong(s -> firstProduced.getOrDefault(s, now)).min().orElse(now);
        if (now - oldest <= horizonMs * 1_000_000L) {
            return false;
        }
        overdue.addAll(inFlight);
        LOG.error("edge sender: {} entries in flight for longer than the resend horizon ({} days); ending the session so the client "
                + "cannot deliver them late", inFlight.size(), horizonMs / 86_400_000.0);
        return true;
    }

    private void setAside(SegmentFormat.Frame frame, String why) throws IOException {
        Path path = queue.directory().resolve("expired").resolve(String.format("%020d.record", frame.seq()));
        Files.createDirectories(path.getParent());
        byte[] key = frame.key();
        byte[] value = frame.value();
        byte[] record = new byte[key.length + 1 + value.length];
        System.arraycopy(key, 0, record, 0, key.length);
        record[key.length] = '\n';
        System.arraycopy(value, 0, record, key.length + 1, value.length);
        Files.write(path, record, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                StandardOpenOption.SYNC);
        expired++;
        overdue.remove(frame.seq());
        LOG.error("edge sender: sample {} (seq {}) may have reached the broker before and is not sent again: {}; ingest-app may no "
                + "longer recognise it as a resend. Set aside in {}: check the dataset for it before queueing it anew",
                new String(key, StandardCharsets.UTF_8), frame.seq(), why, path);
        queue.ack(frame.seq());
    }
}
