package io.shardflow.cli.bench;

import java.util.Collection;
import java.util.Map;

/**
 * CPU seconds of one or more processes over a window: all threads, the JIT compiler threads, and
 * the VM thread with the GC threads (the serial collector runs in the VM thread, G1 in its own).
 * The rest ({@link #application()}) is the work itself: what a steady state should be made of.
 */
public record CpuSplit(double total, double jit, double vm) {

    public static final CpuSplit NONE = new CpuSplit(0, 0, 0);

    /**
     * From two looks at one process's threads ({@link ProcessMeter#threadCpuSeconds}), or at several
     * processes' threads keyed uniquely; threads that ended in between are missed.
     */
    public static <K> CpuSplit between(Map<K, Map.Entry<String, Double>> before, Map<K, Map.Entry<String, Double>> after) {
        double total = 0;
        double jit = 0;
        double vm = 0;
        for (Map.Entry<K, Map.Entry<String, Double>> thread : after.entrySet()) {
            Map.Entry<String, Double> start = before.get(thread.getKey());
            double used = thread.getValue().getValue() - (start == null ? 0 : start.getValue());
            String name = thread.getValue().getKey();
            total += used;
            jit += isCompiler(name) ? used : 0;
            vm += isVmOrGc(name) ? used : 0;
        }
        return new CpuSplit(total, jit, vm);
    }

    public static CpuSplit sum(Collection<CpuSplit> splits) {
        return splits.stream().reduce(NONE, CpuSplit::plus);
    }

    public CpuSplit plus(CpuSplit other) {
        return new CpuSplit(total + other.total, jit + other.jit, vm + other.vm);
    }

    /** Neither JIT nor VM/GC threads. */
    public double application() {
        return total - jit - vm;
    }

    /** Each part divided by {@code gigabytes}: CPU-seconds per GB. */
    public CpuSplit per(double gigabytes) {
        return new CpuSplit(total / gigabytes, jit / gigabytes, vm / gigabytes);
    }

    static boolean isCompiler(String thread) {
        return thread.contains("CompilerThre");
    }

    static boolean isVmOrGc(String thread) {
        return thread.equals("VM Thread") || thread.startsWith("GC Thread") || thread.startsWith("G1 ");
    }
}
