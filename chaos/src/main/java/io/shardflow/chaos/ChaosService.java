package io.shardflow.chaos;

import io.shardflow.stack.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One ingest-app or shard-sink instance of a chaos run and what the harness did to it: running,
 * killed (restart pending), frozen by the harness, or frozen by itself. The fault scheduler and the
 * watchdog both act on it, so every transition is synchronized.
 */
final class ChaosService {

    /** Which stage of the pipeline the instance runs; the stack's servers are {@link io.shardflow.stack.Role}s. */
    enum Stage { INGEST, SINK }

    /** Harness-side state; the process itself may disagree (it crashed), which the watchdog notices. */
    enum State { UP, DOWN, FROZEN }

    private static final Pattern CRASH = Pattern.compile("FAULT INJECTION: crash point (\\S+) reached");
    private static final Pattern FREEZE = Pattern.compile("FAULT INJECTION: freeze point (\\S+) reached");

    private final String name;
    private final Stage stage;
    private final String mainClass;
    private final Map<String, String> settings;
    private final Path workDir;
    private final List<String> jvmOptions;
    private final List<String> arguments;
    private ServiceProcess process;
    private State state = State.DOWN;
    private int starts;

    ChaosService(String name, Stage stage, String mainClass, Map<String, String> settings, Path workDir, List<String> jvmOptions,
                 List<String> arguments) {
        this.name = name;
        this.stage = stage;
        this.mainClass = mainClass;
        this.settings = Map.copyOf(settings);
        this.workDir = workDir;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.arguments = List.copyOf(arguments);
    }

    String name() {
        return name;
    }

    Stage stage() {
        return stage;
    }

    Path workDir() {
        return workDir;
    }

    synchronized State state() {
        return state;
    }

    synchronized void start() {
        process = process == null ? ServiceProcess.start(name, mainClass, settings, workDir, jvmOptions, arguments) : process.restart();
        state = State.UP;
        starts++;
    }

    synchronized int starts() {
        return starts;
    }

    synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    /** kill -9 of a running instance; false if it is not up (killed, frozen, or crashed on its own). */
    synchronized boolean kill() {
        if (state != State.UP || !process.isAlive()) {
            return false;
        }
        process.kill();
        state = State.DOWN;
        return true;
    }

    synchronized boolean freeze() {
        if (state != State.UP || !process.isAlive()) {
            return false;
        }
        process.suspend();
        state = State.FROZEN;
        return true;
    }

    synchronized void thaw() {
        if (process != null && process.isAlive()) {
            process.resume();
        }
        if (state == State.FROZEN) {
            state = State.UP;
        }
    }

    /** Up as far as the harness knows, but the process is gone: it crashed or exited on its own. */
    synchronized boolean exitedOnItsOwn() {
        return state == State.UP && process != null && !process.isAlive();
    }

    /** Up as far as the harness knows, but stopped: it froze itself at a freeze point. */
    synchronized boolean frozeOnItsOwn() {
        return state == State.UP && process != null && process.isAlive() && process.isSuspended();
    }

    /** Marks a process that ended on its own as down, to be restarted. */
    synchronized int markExited() {
        state = State.DOWN;
        return process.exitCode();
    }

    /** Marks a process that froze itself as frozen, to be thawed. */
    synchronized void markFrozen() {
        state = State.FROZEN;
    }

    /** The crash point this incarnation's log names, if it halted at one. */
    synchronized String crashPoint() {
        return lastMatch(CRASH, process.ownLog());
    }

    synchronized String freezePoint() {
        return lastMatch(FREEZE, process.ownLog());
    }

    /** Why this incarnation ended, from its log: the last ERROR line and the exception under it, else the tail. */
    synchronized String failureSummary() {
        List<String> lines = process.ownLog().lines().toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).contains(" ERROR ")) {
                StringBuilder summary = new StringBuilder(clip(lines.get(i)));
                for (int j = i + 1; j < lines.size() && j <= i + 3; j++) {
                    if (!lines.get(j).startsWith("\t") && !lines.get(j).startsWith(" ")) {
                        summary.append(System.lineSeparator()).append("    ").append(clip(lines.get(j)));
                    }
                }
                return summary.toString();
            }
        }
        return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }

    private static String clip(String line) {
        return line.length() > 400 ? line.substring(0, 400) + "..." : line;
    }

    private static String lastMatch(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        String found = null;
        while (matcher.find()) {
            found = matcher.group(1);
        }
        return found;
    }

    /** SIGTERM and wait (thawing a frozen process first). */
    synchronized void stop() {
        if (process != null) {
            process.close();
            process.waitFor(Duration.ofSeconds(5));
        }
        state = State.DOWN;
    }
}
