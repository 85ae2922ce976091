package io.shardflow.app;

import java.util.Optional;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the process, with {@link #EXIT_CODE}, when any of its threads dies of a JVM {@link Error}
 * (out of memory, stack overflow, a linkage error). Such a process cannot be trusted to go on, and
 * a worker thread that silently ended would leave it alive but idle, or exiting 0 as if all was well.
 *
 * <p>The process is halted, not exited: shutdown hooks would try to close clients cleanly on an
 * exhausted heap and may hang. Nothing is lost by skipping them: offsets only ever move past
 * durable commits (docs/ARCHITECTURE.md, invariant 1), so the restarted process resumes from there.
 */
public final class FatalErrors implements Thread.UncaughtExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(FatalErrors.class);

    /** Exit status of a process ended by a JVM error; 1 is a handled failure, 2 a bad configuration. */
    public static final int EXIT_CODE = 3;

    private final String process;
    private final IntConsumer halt;

    /** @param halt ends the process with the given status; tests pass a recorder */
    public FatalErrors(String process, IntConsumer halt) {
        this.process = process;
        this.halt = halt;
    }

    /** The handler for a real process: {@link Runtime#halt}. */
    public static FatalErrors halting(String process) {
        return new FatalErrors(process, code -> Runtime.getRuntime().halt(code));
    }

    /** Makes this the handler of every thread that has none of its own. */
    public FatalErrors installAsDefault() {
        Thread.setDefaultUncaughtExceptionHandler(this);
        return this;
    }

    /** The first {@link Error} in the cause chain of {@code failure}, if any. */
    public static Optional<Error> fatalCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof Error error) {
                return Optional.of(error);
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return Optional.empty();
    }

    /** Halts the process if {@code failure} is or wraps an {@link Error}; otherwise returns false. */
    public boolean haltIfFatal(Thread thread, Throwable failure) {
        Optional<Error> fatal = fatalCause(failure);
        if (fatal.isEmpty()) {
            return false;
        }
        // stderr first: logging may itself need memory that is no longer there.
        System.err.println(process + ": fatal " + fatal.get().getClass().getName() + " in thread " + thread.getName()
                + "; halting with status " + EXIT_CODE);
        try {
            LOG.error("{}: fatal error in thread {}; halting with status {}", process, thread.getName(), EXIT_CODE, failure);
        } finally {
            halt.accept(EXIT_CODE);
        }
        return true;
    }

    @Override
    public void uncaughtException(Thread thread, Throwable failure) {
        if (!haltIfFatal(thread, failure)) {
            LOG.error("{}: thread {} ended on an uncaught exception", process, thread.getName(), failure);
        }
    }
}
