package io.shardflow.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.DirectoryStream;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;

/** CPU time and peak resident memory of a Linux process, read from /proc. */
public final class ProcessMeter {

    /** USER_HZ: /proc/PID/stat counts CPU time in these ticks; 100 on every Linux this runs on. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcessMeter() {
    }

    /** utime + stime in seconds; empty once the process is gone. */
    public static OptionalDouble cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the command name may hold spaces: fields are counted after its closing parenthesis
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long utime = Long.parseLong(fields[11]);
            long stime = Long.parseLong(fields[12]);
            return OptionalDouble.of((utime + stime) / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }

    /**
     * CPU seconds of each live thread of the process, by thread id, with the thread's name (as the
     * kernel keeps it, 15 characters at most); empty once the process is gone.
     */
    public static Map<Long, Map.Entry<String, Double>> threadCpuSeconds(long pid) {
        Map<Long, Map.Entry<String, Double>> threads = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    double seconds = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
                    threads.put(Long.parseLong(task.getFileName().toString()), Map.entry(name, seconds));
                } catch (IOException | RuntimeException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
        return threads;
    }

    /** VmHWM (peak resident set) in MB; empty once the process is gone. */
    public static OptionalDouble peakRssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return OptionalDouble.of(Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024 / 1e6);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return OptionalDouble.empty();
    }

    /**
     * The machine's CPU ticks so far from /proc/stat, as {busy, all}: busy is every tick not idle or
     * waiting for I/O, of every process (other people's work on a shared machine included).
     */
    public static long[] machineTicks() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long all = 0;
            long idle = 0;
            for (int i = 1; i < fields.length && i <= 8; i++) {
                long ticks = Long.parseLong(fields[i]);
                all += ticks;
                idle += i == 4 || i == 5 ? ticks : 0; // idle, iowait
            }
            return new long[] {all - idle, all};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /** This JVM's own CPU time (the raw baselines' clients run here). */
    public static double ownCpuSeconds() {
        return cpuSeconds(ProcessHandle.current().pid()).orElse(0);
    }
}
