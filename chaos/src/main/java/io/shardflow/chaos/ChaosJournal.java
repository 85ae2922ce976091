package io.shardflow.chaos;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What happened during a chaos run: each fault injected (kind, target, when, for how long), other
 * notable events, and violations seen while running (a service that died on its own). Thread-safe;
 * times are offsets from the start of the run. Optionally echoes each line as it happens.
 */
public final class ChaosJournal {

    /** The kinds of fault a run injects. */
    public enum Kind {
        KILL_INGEST("kill -9 ingest-app, restart after a delay"),
        KILL_SINK("kill -9 shard-sink, restart after a delay"),
        ZOMBIE_SINK("SIGSTOP shard-sink past its session timeout, then SIGCONT"),
        S3_OUTAGE("S3 server stopped, then started"),
        BROKER_RESTART("Kafka broker restarted (kill -9 or graceful)"),
        SINK_CRASH_POINT("shard-sink halted itself at a crash point (fault injection)"),
        SINK_FREEZE_POINT("shard-sink froze itself at a freeze point, SIGCONT later (fault injection)");

        final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    /** One injected fault. */
    public record Fault(Kind kind, String target, Duration at, Duration length, String detail) {
    }

    private final long startNanos = System.nanoTime();
    private final PrintWriter echo;
    private final List<Fault> faults = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();

    /** @param echo prints each entry as it is recorded; null for silence */
    public ChaosJournal(PrintWriter echo) {
        this.echo = echo;
    }

    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    public synchronized void fault(Kind kind, String target, Duration at, Duration length, String detail) {
        Fault fault = new Fault(kind, target, at, length, detail);
        faults.add(fault);
        say(line(fault));
    }

    public synchronized void event(String what) {
        events.add(stamp(elapsed()) + "  " + what);
        say(stamp(elapsed()) + "  " + what);
    }

    public synchronized void violation(String what) {
        violations.add(stamp(elapsed()) + "  " + what);
        say(stamp(elapsed()) + "  VIOLATION: " + what);
    }

    /** The faults in the order they started. */
    public synchronized List<Fault> faults() {
        return faults.stream().sorted(java.util.Comparator.comparing(Fault::at)).toList();
    }

    public synchronized List<String> events() {
        return List.copyOf(events);
    }

    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    public synchronized Map<Kind, Integer> counts() {
        Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
        for (Kind kind : Kind.values()) {
            counts.put(kind, 0);
        }
        faults.forEach(f -> counts.merge(f.kind(), 1, Integer::sum));
        return counts;
    }

    private void say(String line) {
        if (echo != null) {
            echo.println(line);
            echo.flush();
        }
    }

    static String line(Fault fault) {
        return String.format(Locale.ROOT, "%s  %-17s %-14s %6s  %s", stamp(fault.at()), fault.kind(), fault.target(),
                fault.length().isZero() ? "" : seconds(fault.length()), fault.detail());
    }

    static String stamp(Duration at) {
        return String.format(Locale.ROOT, "t+%02d:%02d.%d", at.toMinutes(), at.toSecondsPart(), at.toMillisPart() / 100);
    }

    static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.1fs", duration.toMillis() / 1000.0);
    }
}
