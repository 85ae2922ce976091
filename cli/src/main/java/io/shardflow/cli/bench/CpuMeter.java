package io.shardflow.cli.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * CPU time of the processes of a run, grouped by role ("ingest-app", "broker", "bench JVM"...),
 * from each process's own thread counters in /proc: a window's CPU is the difference of two looks,
 * whatever else the machine is busy with. On a shared machine this is the robust figure; wall-clock
 * rates move with other people's load, CPU-seconds per byte barely do.
 */
public final class CpuMeter {

    /** The JVM running the suite: the raw baselines' clients and the pipeline's publisher. */
    public static final String BENCH_JVM = "bench JVM (publisher, raw clients)";

    private final Map<String, Supplier<List<Long>>> roles = new LinkedHashMap<>();

    /** Adds a role whose processes are {@code pids} at each look (services start and stop between looks). */
    public CpuMeter role(String role, Supplier<List<Long>> pids) {
        roles.put(role, pids);
        return this;
    }

    public CpuMeter role(String role, long pid) {
        return role(role, () -> List.of(pid));
    }

    /** One look at every thread of every role's processes. */
    public Look look() {
        Map<String, Map<String, Map.Entry<String, Double>>> threads = new LinkedHashMap<>();
        roles.forEach((role, pids) -> {
            Map<String, Map.Entry<String, Double>> ofRole = new HashMap<>();
            for (long pid : new ArrayList<>(pids.get())) {
                ProcessMeter.threadCpuSeconds(pid).forEach((thread, cpu) -> ofRole.put(pid + ":" + thread, cpu));
            }
            threads.put(role, ofRole);
        });
        return new Look(System.nanoTime(), threads);
    }

    /** What each role's threads used between two looks. */
    public record Look(long nanos, Map<String, Map<String, Map.Entry<String, Double>>> threads) {

        public Window since(Look before) {
            Map<String, CpuSplit> byRole = new LinkedHashMap<>();
            threads.forEach((role, after) -> byRole.put(role, CpuSplit.between(before.threads.getOrDefault(role, Map.of()), after)));
            return new Window((nanos - before.nanos) / 1e9, byRole);
        }
    }

    /** A window's wall seconds and each role's CPU over it. */
    public record Window(double seconds, Map<String, CpuSplit> byRole) {

        public CpuSplit of(String role) {
            return byRole.getOrDefault(role, CpuSplit.NONE);
        }

        public CpuSplit of(List<String> someRoles) {
            return CpuSplit.sum(someRoles.stream().map(this::of).toList());
        }

        public CpuSplit all() {
            return CpuSplit.sum(byRole.values());
        }
    }
}
