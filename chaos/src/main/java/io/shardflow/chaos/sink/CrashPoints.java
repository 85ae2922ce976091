package io.shardflow.chaos.sink;

import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.sink.SinkHook;
import java.util.EnumMap;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FAULT INJECTION, for the chaos harness only: a {@link SinkHook} that {@link FaultInjectingSinkApp}
 * installs in a shard-sink. At each pass through a {@link CrashPoint} listed in the crash spec the
 * process halts (exit 137, no shutdown hooks, no flush: what kill -9 does) with the listed
 * probability; a point listed in the freeze spec makes the process SIGSTOP itself instead, a zombie
 * until someone sends SIGCONT.
 *
 * <p>Spec format: {@code point:probability[,point:probability...]}, e.g.
 * {@code after-upload:0.02,after-commit:0.02}.
 */
public final class CrashPoints implements SinkHook {

    private static final Logger LOG = LoggerFactory.getLogger(CrashPoints.class);

    /** No fault injection: every {@link #reach} returns at once. */
    public static final CrashPoints NONE = new CrashPoints(new double[0], new double[0], RandomGenerator.getDefault(), Injector.PROCESS);

    private final boolean armed;
    private final double[] crash;
    private final double[] freeze;
    private final RandomGenerator random;
    private final Injector injector;

    private CrashPoints(double[] crash, double[] freeze, RandomGenerator random, Injector injector) {
        this.armed = crash.length > 0 || freeze.length > 0;
        this.crash = crash.length > 0 ? crash : new double[CrashPoint.values().length];
        this.freeze = freeze.length > 0 ? freeze : new double[CrashPoint.values().length];
        this.random = random;
        this.injector = injector;
    }

    /** Crash points from the two specs; both blank gives {@link #NONE}. */
    public static CrashPoints of(String crashSpec, String freezeSpec) {
        return of(crashSpec, freezeSpec, RandomGenerator.getDefault(), Injector.PROCESS);
    }

    public static CrashPoints of(String crashSpec, String freezeSpec, RandomGenerator random, Injector injector) {
        Map<CrashPoint, Double> crashes = parse(crashSpec);
        Map<CrashPoint, Double> freezes = parse(freezeSpec);
        if (crashes.isEmpty() && freezes.isEmpty()) {
            return NONE;
        }
        LOG.warn("FAULT INJECTION is on: this process will crash at {} and freeze at {} on purpose; never in production",
                crashes, freezes);
        return new CrashPoints(table(crashes), table(freezes), random, injector);
    }

    /** Parses a spec; throws {@link IllegalArgumentException} naming the bad part. */
    public static Map<CrashPoint, Double> parse(String spec) {
        Map<CrashPoint, Double> points = new EnumMap<>(CrashPoint.class);
        if (spec == null || spec.isBlank()) {
            return points;
        }
        for (String part : spec.split(",")) {
            String[] pair = part.split(":");
            if (pair.length != 2) {
                throw new IllegalArgumentException("'" + part.trim() + "' is not point:probability");
            }
            CrashPoint point = CrashPoint.parse(pair[0]);
            double probability;
            try {
                probability = Double.parseDouble(pair[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("probability of " + point.id() + " is not a number: " + pair[1].trim());
            }
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability of " + point.id() + " must be in [0, 1], got " + probability);
            }
            points.put(point, probability);
        }
        return points;
    }

    private static double[] table(Map<CrashPoint, Double> points) {
        double[] table = new double[CrashPoint.values().length];
        points.forEach((point, probability) -> table[point.ordinal()] = probability);
        return table;
    }

    public boolean armed() {
        return armed;
    }

    /** Whether the point can fire at all; lets callers skip setting up a fault they will never inject. */
    public boolean listed(CrashPoint point) {
        return armed && (crash[point.ordinal()] > 0 || freeze[point.ordinal()] > 0);
    }

    /** The process passes {@code point}: maybe crash or freeze here. */
    public void reach(CrashPoint point) {
        if (!armed) {
            return;
        }
        double crashOdds = crash[point.ordinal()];
        if (crashOdds > 0 && random.nextDouble() < crashOdds) {
            injector.halt(point);
        }
        double freezeOdds = freeze[point.ordinal()];
        if (freezeOdds > 0 && random.nextDouble() < freezeOdds) {
            injector.freeze(point);
        }
    }

    @Override
    public void passed(SinkHook.Step step) {
        reach(CrashPoint.after(step));
    }

    @Override
    public ObjectStore uploadStore(ObjectStore store) {
        return MidUploadCrashes.wrap(store, this);
    }

    /** Draws whether a fault fires at {@code point} without firing it: for faults that need timing (mid-upload). */
    public boolean draw(CrashPoint point) {
        double odds = armed ? crash[point.ordinal()] : 0;
        return odds > 0 && random.nextDouble() < odds;
    }

    public Injector injector() {
        return injector;
    }

    /** What a fault does; tests record instead of halting the test JVM. */
    public interface Injector {

        void halt(CrashPoint point);

        void freeze(CrashPoint point);

        /** The real thing: halt the JVM, or SIGSTOP this process. */
        Injector PROCESS = new Injector() {
            @Override
            public void halt(CrashPoint point) {
                // stderr, not the logger: it must be in the log file before the halt, and the logger may buffer.
                System.err.println("FAULT INJECTION: crash point " + point.id() + " reached, halting with exit code 137");
                System.err.flush();
                Runtime.getRuntime().halt(137);
            }

            @Override
            public void freeze(CrashPoint point) {
                long pid = ProcessHandle.current().pid();
                System.err.println("FAULT INJECTION: freeze point " + point.id() + " reached, process " + pid
                        + " stops itself (SIGSTOP) until it gets SIGCONT");
                System.err.flush();
                try {
                    new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start().waitFor();
                } catch (java.io.IOException e) {
                    System.err.println("FAULT INJECTION: cannot freeze: " + e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }
}
