package io.shardflow.edge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resend horizon as the Python SDK applies it (docs/EDGE-QUEUE.md): an entry that may have reached
 * the broker before is sent again only within the horizon of its queue time, else set aside in
 * {@code expired/}, counted and marked done; a first attempt is sent whatever its age, once the
 * attempted mark covers it durably. Clocks are injected: days pass by setting them.
 */
class ResendHorizonTest {

    private static final Instant T0 = Instant.parse("2027-01-15T00:00:00Z");
    private static final long HORIZON_MS = Duration.ofDays(7).toMillis();
    private static final DurableQueue.Settings SETTINGS = new DurableQueue.Settings(1L << 20, DurableQueue.Policy.BLOCK, 0, 1000, HORIZON_MS);

    @TempDir
    Path work;

    private static Clock at(Instant instant) {
        return Clock.fixed(instant, ZoneOffset.UTC);
    }

    private static List<SegmentFormat.Frame> frames(DurableQueue queue) throws Exception {
        List<SegmentFormat.Frame> out = new ArrayList<>();
        try (QueueReader reader = new QueueReader(queue, queue.doneSeq() + 1)) {
            for (Optional<SegmentFormat.Frame> f = reader.next(0); f.isPresent(); f = reader.next(0)) {
                out.add(f.get());
            }
        }
        return out;
    }

    private static void append(DurableQueue queue, String key) throws Exception {
        queue.append(List.<byte[][]>of(new byte[][] {key.getBytes(StandardCharsets.UTF_8), ("value of " + key).getBytes(StandardCharsets.UTF_8)}));
    }

    /** Five entries produced (admitted) by a sender whose acknowledgements never came, then the process gone. */
    private Path inFlightAtCrash() throws Exception {
        Path dir = work.resolve("q");
        try (DurableQueue queue = new DurableQueue(dir, SETTINGS, at(T0))) {
            for (int i = 0; i < 5; i++) {
                append(queue, "s" + i);
            }
            ResendHorizon horizon = new ResendHorizon(queue, HORIZON_MS, at(T0), System::nanoTime);
            for (SegmentFormat.Frame frame : frames(queue)) {
                assertThat(horizon.admit(frame)).as("a first attempt").isTrue();
            }
        }
        return dir;
    }

    @Test
    void shouldResendWhatWasInFlightWithinTheHorizon() throws Exception {
        Path dir = inFlightAtCrash();
        try (DurableQueue queue = new DurableQueue(dir, SETTINGS, at(T0.plus(Duration.ofDays(6))))) {
            assertThat(queue.attemptedSeq()).as("the mark covered them durably").isGreaterThanOrEqualTo(5);
            ResendHorizon horizon = new ResendHorizon(queue, HORIZON_MS, at(T0.plus(Duration.ofDays(6))), System::nanoTime);
            for (SegmentFormat.Frame frame : frames(queue)) {
                assertThat(horizon.admit(frame)).isTrue();
            }
            assertThat(horizon.expired()).isZero();
        }
    }

    @Test
    void shouldSetAsideWhatWasInFlightAndSendWhatNeverWasAfterTheHorizon() throws Exception {
        Path dir = inFlightAtCrash();
        Instant later = T0.plus(Duration.ofDays(8));
        try (DurableQueue queue = new DurableQueue(dir, SETTINGS, at(T0))) {
            append(queue, "never-sent"); // queued 8 days ago too, while offline, never produced
        }
        try (DurableQueue queue = new DurableQueue(dir, SETTINGS, at(later))) {
            ResendHorizon horizon = new ResendHorizon(queue, HORIZON_MS, at(later), System::nanoTime);
            List<String> admitted = new ArrayList<>();
            for (SegmentFormat.Frame frame : frames(queue)) {
                if (horizon.admit(frame)) {
                    admitted.add(new String(frame.key(), StandardCharsets.UTF_8));
                }
            }
            assertThat(admitted).containsExactly("never-sent");
            assertThat(horizon.expired()).isEqualTo(5);
            assertThat(queue.doneSeq()).as("set aside counts as done").isEqualTo(5);
            Path first = dir.resolve("expired").resolve(String.format("%020d.record", 1));
            assertThat(new String(Files.readAllBytes(first), StandardCharsets.UTF_8)).isEqualTo("s0\nvalue of s0");
        }
    }

    @Test
    void shouldSetAsideAMaybeSentEntryWhenTheClockIsBehindItsQueueTime() throws Exception {
        Path dir = inFlightAtCrash();
        Instant behind = T0.minus(Duration.ofDays(3));
        try (DurableQueue queue = new DurableQueue(dir, SETTINGS, at(behind))) {
            ResendHorizon horizon = new ResendHorizon(queue, HORIZON_MS, at(behind), System::nanoTime);
            for (SegmentFormat.Frame frame : frames(queue)) {
                assertThat(horizon.admit(frame)).isFalse();
            }
        }
    }

    @Test
    void shouldEndASessionWhoseEntriesStayInFlightPastTheHorizonAndSetThemAside() throws Exception {
        AtomicLong nanos = new AtomicLong(1_000);
        try (DurableQueue queue = new DurableQueue(work.resolve("q"), SETTINGS, at(T0))) {
            append(queue, "a");
            append(queue, "b");
            ResendHorizon horizon = new ResendHorizon(queue, HORIZON_MS, at(T0.plus(Duration.ofDays(8))), nanos::get);
            List<SegmentFormat.Frame> frames = frames(queue);
            for (SegmentFormat.Frame frame : frames) {
                assertThat(horizon.admit(frame)).isTrue();
            }
            Map<Long, Long> firstProduced = Map.of(1L, 1_000L, 2L, 1_000L);
            assertThat(horizon.overdue(Set.of(1L, 2L), firstProduced)).isFalse();
            nanos.addAndGet(Duration.ofDays(8).toNanos());
            assertThat(horizon.overdue(Set.of(1L, 2L), firstProduced)).isTrue();
            for (SegmentFormat.Frame frame : frames) {
                assertThat(horizon.admit(frame)).as("seq %d, in flight for 8 days", frame.seq()).isFalse();
            }
            assertThat(horizon.expired()).isEqualTo(2);
        }
    }

    @Test
    void shouldCountEverythingInAQueueFromBeforeTheMarkAsMaybeSent() throws Exception {
        Path dir = work.resolve("q");
        try (DurableQueue queue = new DurableQueue(dir, SETTINGS, at(T0))) {
            append(queue, "a");
            append(queue, "b");
        }
        Files.delete(dir.resolve("attempted"));
        try (DurableQueue queue = new DurableQueue(dir, SETTINGS, at(T0))) {
            assertThat(queue.attemptedSeq()).isEqualTo(2);
        }
        try (DurableQueue fresh = new DurableQueue(work.resolve("fresh"), SETTINGS, at(T0))) {
            assertThat(fresh.attemptedSeq()).isZero();
        }
    }
}
