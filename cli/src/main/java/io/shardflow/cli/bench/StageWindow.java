package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import java.time.Duration;

/**
 * The timed window of one stage working through pre-filled input: it opens once the stage has
 * done its warm-up (so JIT compilation and the first shards stay outside it) and closes when the
 * stage has done everything. Progress is read from what the stage made durable (the ingest group's
 * committed offsets, the commit log), so the window counts exactly the records done inside it.
 */
final class StageWindow {

    private static final Duration POLL = Duration.ofMillis(50);

    /** How many records the stage has made durable so far. */
    interface Done {
        long count() throws Exception;
    }

    /**
     * @param samples records done inside the window
     * @param warmup  CPU of every role from the start of the wait to the window's opening
     * @param cpu     CPU of every role over the window
     */
    record Result(long samples, double seconds, CpuMeter.Window warmup, CpuMeter.Window cpu) {

        /** Shortest window timed: progress moves in steps of a commit interval (1 s), so a shorter one is mostly step. */
        static final double SHORTEST_SECONDS = 1.0;

        /**
         * Whether the stage did the window's work too fast to time: within one or two durable steps, so
         * that the window holds no records or lasted less than {@link #SHORTEST_SECONDS}.
         */
        boolean tooShortToTime() {
            return samples <= 0 || seconds < SHORTEST_SECONDS;
        }
    }

    private StageWindow() {
    }

    /**
     * Waits for {@code warmup} records done, opens the window (a CPU look, then {@code opened}), waits
     * for {@code total}, closes it; {@code alive} fails the wait if a service died.
     */
    static Result measure(Done done, long warmup, long total, CpuMeter meter, Runnable opened, Runnable alive, Duration timeout,
                          Progress progress) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        CpuMeter.Look began = meter.look();
        long atStart = await(done, warmup, progress, alive, deadline);
        CpuMeter.Look start = meter.look();
        opened.run();
        long atEnd = await(done, total, progress, alive, deadline);
        CpuMeter.Window window = meter.look().since(start);
        return new Result(atEnd - atStart, window.seconds(), start.since(began), window);
    }

    private static long await(Done done, long target, Progress progress, Runnable alive, long deadline) throws Exception {
        while (true) {
            long count = done.count();
            progress.update(count);
            if (count >= target) {
                return count;
            }
            alive.run();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + count + " of " + target + " records done in time");
            }
            Thread.sleep(POLL.toMillis());
        }
    }
}
