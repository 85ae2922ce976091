package io.shardflow.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.gateway.parse.BadRequest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.eclipse.jetty.http.BadMessageException;
import org.junit.jupiter.api.Test;

class BodyReaderTest {

    private static final long MIN_RATE = 1024;
    private static final Duration GRACE = Duration.ofSeconds(5);

    /** A body arriving in pieces, each after a pause on a clock the reader's pace also reads. */
    private static final class Trickle extends InputStream {
        private final Deque<int[]> pieces = new ArrayDeque<>(); // {bytes, pause in ms before them}
        private final AtomicLong clock;

        Trickle(AtomicLong clock) {
            this.clock = clock;
        }

        Trickle then(int bytes, long pauseMillis) {
            pieces.add(new int[] {bytes, (int) pauseMillis});
            return this;
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            if (pieces.isEmpty()) {
                return -1;
            }
            int[] piece = pieces.peek();
            clock.addAndGet(piece[1] * 1_000_000L);
            piece[1] = 0;
            int n = Math.min(piece[0], length);
            piece[0] -= n;
            if (piece[0] == 0) {
                pieces.poll();
            }
            return n;
        }
    }

    private static BadRequest refusal(Runnable read) {
        try {
            read.run();
        } catch (BadRequest e) {
            return e;
        }
        throw new AssertionError("the body was not refused");
    }

    @Test
    void shouldTakeATinyBodyThatCameLongAfterItsHeaders() {
        AtomicLong clock = new AtomicLong();
        byte[] body = BodyReader.read(new Trickle(clock).then(2, 3), 2, 1 << 20, new BodyPace(MIN_RATE, GRACE, clock::get));
        assertThat(body).hasSize(2);
        // Even a body whose last byte comes past the grace is taken once it is whole: refusing it then frees nothing.
        assertThat(BodyReader.read(new Trickle(clock).then(1, 0).then(1, 9_000), 2, 1 << 20, new BodyPace(MIN_RATE, GRACE, clock::get)))
                .hasSize(2);
    }

    @Test
    void shouldRefuseATrickleOnceTheGraceIsOver() {
        AtomicLong clock = new AtomicLong();
        Trickle trickle = new Trickle(clock);
        for (int i = 0; i < 30; i++) {
            trickle.then(1, 1_000);
        }
        BadRequest refused = refusal(() -> BodyReader.read(trickle, 1000, 1 << 20, new BodyPace(MIN_RATE, GRACE, clock::get)));
        assertThat(refused.status()).isEqualTo(408);
        assertThat(refused.code()).isEqualTo("BODY_TOO_SLOW");
        assertThat(refused.getMessage()).contains("request.min.data.rate");
        assertThat(clock.get()).as("refused at the first byte after the grace").isEqualTo(Duration.ofSeconds(6).toNanos());
    }

    @Test
    void shouldNotJudgeThePaceWhenTheFloorIsOff() {
        AtomicLong clock = new AtomicLong();
        Trickle trickle = new Trickle(clock).then(1, 60_000).then(1, 60_000);
        assertThat(BodyReader.read(trickle, 2, 1 << 20, new BodyPace(0, GRACE, clock::get))).hasSize(2);
    }

    @Test
    void shouldAnswerTheServersOwnReadFailuresWithA4xx() {
        BodyPace pace = new BodyPace(MIN_RATE, GRACE, System::nanoTime);
        List<RuntimeException> jetty = List.of(new BadMessageException(408, "Request content data rate < 1024 B/s"),
                new BadMessageException(400, "bad chunk"), new IllegalStateException("stream closed"));
        for (RuntimeException failure : jetty) {
            BadRequest refused = refusal(() -> BodyReader.read(failing(failure), 10, 1 << 20, pace));
            assertThat(refused.status()).isBetween(400, 499);
            assertThat(refused.code()).isEqualTo(refused.status() == 408 ? "BODY_TOO_SLOW" : "BODY_NOT_READ");
        }
        assertThat(refusal(() -> BodyReader.read(failing(new BadMessageException(408, "slow")), 10, 1 << 20, pace)).status()).isEqualTo(408);
        assertThatThrownBy(() -> BodyReader.read(new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("reset");
            }
        }, 10, 1 << 20, pace)).isInstanceOf(BadRequest.class).hasMessageContaining("reset");
    }

    private static InputStream failing(RuntimeException failure) {
        return new InputStream() {
            @Override
            public int read() {
                throw failure;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                throw failure;
            }
        };
    }

    @Test
    void shouldRefuseAShortBodyAndALongOne() {
        AtomicLong clock = new AtomicLong();
        BodyPace pace = new BodyPace(MIN_RATE, GRACE, clock::get);
        assertThat(refusal(() -> BodyReader.read(new Trickle(clock).then(5, 0), 10, 1 << 20, pace)).code()).isEqualTo("BODY_NOT_READ");
        assertThat(refusal(() -> BodyReader.read(new Trickle(clock).then(100, 0), -1, 50, pace)).status()).isEqualTo(413);
        assertThat(refusal(() -> BodyReader.read(new Trickle(clock), 51, 50, pace)).status()).isEqualTo(413);
    }

    /**
     * Whatever its pieces (each at most one read), a body whose average since the first byte was awaited keeps to the floor
     * once the grace is over (its first piece may take up to the whole grace) is read whole.
     */
    @Property(tries = 300)
    void aBodyAtTheFloorOrAboveIsNeverRefused(@ForAll @Size(min = 1, max = 40) List<@IntRange(min = 1, max = 65_536) Integer> pieces,
                                              @ForAll @LongRange(min = 0, max = 5_000) long firstPauseMillis) {
        AtomicLong clock = new AtomicLong();
        Trickle trickle = new Trickle(clock);
        long at = 0;
        long sent = 0;
        for (int bytes : pieces) {
            sent += bytes;
            long due = Math.max(firstPauseMillis, sent * 1000 / MIN_RATE);
            trickle.then(bytes, due - at);
            at = due;
        }
        assertThat(BodyReader.read(trickle, sent, Long.MAX_VALUE, new BodyPace(MIN_RATE, GRACE, clock::get))).hasSize((int) sent);
    }

    /** A body slower than the floor is refused once the grace is over, and never read past a few pieces beyond it. */
    @Property(tries = 300)
    void aBodyUnderTheFloorIsRefusedWithA408(@ForAll @IntRange(min = 1, max = 512) int bytesPerSecond,
                                             @ForAll @IntRange(min = 10, max = 200) int seconds) {
        AtomicLong clock = new AtomicLong();
        Trickle trickle = new Trickle(clock);
        for (int s = 0; s < seconds; s++) {
            trickle.then(bytesPerSecond, 1_000);
        }
        BadRequest refused = refusal(() -> BodyReader.read(trickle, (long) bytesPerSecond * seconds + 1, Long.MAX_VALUE,
                new BodyPace(MIN_RATE, GRACE, clock::get)));
        assertThat(refused.status()).isEqualTo(408);
        assertThat(clock.get()).isLessThanOrEqualTo(GRACE.plusSeconds(1).toNanos());
    }
}
