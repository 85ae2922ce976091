package io.shardflow.cli.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A CPU quota for one service process: its own cgroup with a CFS quota ({@code cpu.cfs_quota_us}
 * under cgroup v1, {@code cpu.max} under v2), entered before the JVM starts (see
 * {@link #launcher()}), so the JVM sizes itself by the quota as it would in a container with a CPU
 * limit. The cgroup also gets a high weight: on a machine shared with other work the process then
 * gets the CPU its quota allows rather than one runnable thread's share; the quota caps it.
 */
public final class CpuQuota implements AutoCloseable {

    /** The CFS period: the quota is this many microseconds times the cores. */
    private static final long PERIOD_MICROS = 100_000;
    private static final Path V2_ROOT = Path.of("/sys/fs/cgroup");
    private static final Path V1_ROOT = Path.of("/sys/fs/cgroup/cpu");

    private final Path dir;
    private final boolean v2;
    private final double cores;

    private CpuQuota(Path dir, boolean v2, double cores) {
        this.dir = dir;
        this.v2 = v2;
        this.cores = cores;
    }

    /** Why quotas cannot be set here (no writable cpu cgroup controller); empty when they can. */
    public static Optional<String> unavailable() {
        if (isV2()) {
            return Files.isWritable(V2_ROOT) ? Optional.empty() : Optional.of(V2_ROOT + " is not writable");
        }
        if (!Files.exists(V1_ROOT.resolve("cpu.cfs_quota_us"))) {
            return Optional.of("no cpu cgroup controller at " + V1_ROOT + " or " + V2_ROOT);
        }
        return Files.isWritable(V1_ROOT) ? Optional.empty() : Optional.of(V1_ROOT + " is not writable");
    }

    /** A fresh cgroup {@code name} allowing {@code cores} CPUs (e.g. 0.25). */
    static CpuQuota create(String name, double cores) {
        boolean v2 = isV2();
        Path dir = (v2 ? V2_ROOT : V1_ROOT).resolve(name);
        try {
            if (Files.isDirectory(dir)) {
                Files.delete(dir); // a leftover of an interrupted run; fails if a process is still in it
            }
            Files.createDirectory(dir);
            long quota = Math.max(1000, Math.round(cores * PERIOD_MICROS));
            if (v2) {
                Files.writeString(dir.resolve("cpu.max"), quota + " " + PERIOD_MICROS);
                Files.writeString(dir.resolve("cpu.weight"), "1000");
            } else {
                Files.writeString(dir.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
                Files.writeString(dir.resolve("cpu.cfs_quota_us"), Long.toString(quota));
                Files.writeString(dir.resolve("cpu.shares"), "10240");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up cgroup " + dir, e);
        }
        return new CpuQuota(dir, v2, cores);
    }

    private static boolean isV2() {
        try {
            return Files.readString(V2_ROOT.resolve("cgroup.controllers")).contains("cpu");
        } catch (IOException e) {
            return false;
        }
    }

    double cores() {
        return cores;
    }

    /** A command prefix that moves itself into this cgroup, then execs the service's command (same pid). */
    List<String> launcher() {
        return List.of("/bin/sh", "-c", "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "sh");
    }

    /** Seconds the cgroup's processes were held back by the quota so far (cpu.stat). */
    double throttledSeconds() {
        try {
            for (String line : Files.readAllLines(dir.resolve("cpu.stat"))) {
                String[] field = line.split(" ");
                if (!v2 && field[0].equals("throttled_time")) {
                    return Long.parseLong(field[1]) / 1e9;
                }
                if (v2 && field[0].equals("throttled_usec")) {
                    return Long.parseLong(field[1]) / 1e6;
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return 0;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s (%.2f cores)", dir, cores);
    }

    /** Removes the cgroup; its processes must have ended (a cgroup with members cannot be removed). */
    @Override
    public void close() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                try {
                    Thread.sleep(100); // the kernel lets go of an exited process a moment later
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
