package io.shardflow.cli;

import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Progress of one long task on the error stream, so that {@code --json} output stays clean. On a
 * terminal it redraws one line (a bar, rate and ETA) at most every {@link #REDRAW}; otherwise (a
 * pipe, a CI log) it prints a plain line every {@link #LINE_EVERY} or at every further 10%, which
 * is what a log reader can follow. Thread-safe: producer callbacks report from their own thread.
 */
public final class Progress implements AutoCloseable {

    /** How the progress is drawn. */
    enum Mode {
        /** One redrawn line with a bar. */
        BAR,
        /** Plain periodic lines. */
        LINES,
        /** Nothing. */
        OFF;

        /**
         * {@code SHARDFLOW_PROGRESS} (bar, lines or off) if set; else a bar when a person watches (a
         * console attached to this process), plain lines otherwise.
         */
        static Mode detect() {
            return from(System.getenv(ENV), System.console() != null);
        }

        static Mode from(String setting, boolean console) {
            if (setting == null || setting.isBlank()) {
                return console ? BAR : LINES;
            }
            try {
                return valueOf(setting.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(ENV + " must be bar, lines or off, not '" + setting + "'", e);
            }
        }
    }

    static final String ENV = "SHARDFLOW_PROGRESS";
    static final Duration LINE_EVERY = Duration.ofSeconds(5);
    static final Duration REDRAW = Duration.ofMillis(200);
    private static final int BAR_WIDTH = 30;

    private final PrintWriter out;
    private final Clock clock;
    private final Mode mode;
    private final String task;
    private final String unit;
    private final long total;
    private final long startedMillis;
    private long done;
    private long lastDrawnMillis;
    private int lastDecile;
    private boolean closed;

    Progress(PrintWriter out, Clock clock, Mode mode, String task, String unit, long total) {
        this.out = out;
        this.clock = clock;
        this.mode = mode;
        this.task = task;
        this.unit = unit;
        this.total = Math.max(0, total);
        this.startedMillis = clock.millis();
        this.lastDrawnMillis = startedMillis;
    }

    /** On the command's error stream, drawn as {@link Mode#detect()} says. */
    public static Progress start(PrintWriter err, String task, String unit, long total) {
        return new Progress(err, Clock.systemUTC(), Mode.detect(), task, unit, total);
    }

    /** Reports nothing: for callers that run a task inside a bigger one. */
    public static Progress silent() {
        return new Progress(new PrintWriter(PrintWriter.nullWriter()), Clock.systemUTC(), Mode.OFF, "", "", 0);
    }

    public synchronized void advance(long count) {
        update(done + count);
    }

    /** Sets the count reached; never goes backwards. */
    public synchronized void update(long reached) {
        if (closed || reached <= done) {
            return;
        }
        done = reached;
        long now = clock.millis();
        switch (mode) {
            case BAR -> {
                if (now - lastDrawnMillis >= REDRAW.toMillis()) {
                    out.print("\r" + bar(now));
                    out.flush();
                    lastDrawnMillis = now;
                }
            }
            case LINES -> {
                int decile = total > 0 ? (int) Math.min(10, done * 10 / total) : 0;
                boolean finished = total > 0 && done >= total; // close() prints the last line
                if (!finished && (decile > lastDecile || now - lastDrawnMillis >= LINE_EVERY.toMillis())) {
                    out.println(line(now));
                    out.flush();
                    lastDrawnMillis = now;
                    lastDecile = Math.max(lastDecile, decile);
                }
            }
            case OFF -> { }
        }
    }

    synchronized long done() {
        return done;
    }

    /** Prints the final figures (once). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long now = clock.millis();
        if (mode == Mode.BAR) {
            out.print("\r" + bar(now) + System.lineSeparator());
        } else if (mode == Mode.LINES) {
            out.println(String.format(Locale.ROOT, "%s: %d %s done in %.1f s (%s)", task, done, unit,
                    (now - startedMillis) / 1000.0, rate(now)));
        }
        out.flush();
    }

    private String line(long now) {
        StringBuilder line = new StringBuilder(task).append(": ").append(done);
        if (total > 0) {
            line.append('/').append(total).append(' ').append(unit).append(String.format(Locale.ROOT, " (%d%%)", percent()));
        } else {
            line.append(' ').append(unit);
        }
        line.append(", ").append(rate(now));
        eta(now).ifPresent(eta -> line.append(", ETA ").append(eta));
        return line.toString();
    }

    private String bar(long now) {
        int filled = total > 0 ? (int) (BAR_WIDTH * Math.min(done, total) / total) : 0;
        String bar = "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled);
        String counts = total > 0 ? String.format(Locale.ROOT, "%d/%d %s %3d%%", done, total, unit, percent()) : done + " " + unit;
        return String.format(Locale.ROOT, "%s [%s] %s  %s  ETA %s  ", task, bar, counts, rate(now), eta(now).orElse("--"));
    }

    private int percent() {
        return (int) (100 * Math.min(done, total) / total);
    }

    private String rate(long now) {
        double seconds = Math.max(1, now - startedMillis) / 1000.0;
        return String.format(Locale.ROOT, "%.0f %s/s", done / seconds, unit);
    }

    private Optional<String> eta(long now) {
        if (total <= 0 || done <= 0 || done >= total) {
            return Optional.empty();
        }
        long elapsed = Math.max(1, now - startedMillis);
        long remainingSeconds = Math.round(elapsed / 1000.0 * (total - done) / done);
        return Optional.of(remainingSeconds >= 60
                ? String.format(Locale.ROOT, "%dm%02ds", remainingSeconds / 60, remainingSeconds % 60)
                : remainingSeconds + " s");
    }
}
