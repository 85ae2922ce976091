package io.shardflow.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * What the results were measured on: absolute figures from a shared 2-core box mean little
 * without it, ratios to the same-run baselines travel better.
 *
 * @param gitCommit the checkout's commit, with {@code -dirty} when it had uncommitted changes; "unknown" outside a checkout
 */
public record MachineInfo(int cores, long memoryBytes, String jvm, String os, Instant date, String gitCommit) {

    public static MachineInfo detect(Path checkout, Clock clock) {
        return new MachineInfo(Runtime.getRuntime().availableProcessors(), memTotalBytes(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                clock.instant(), gitCommit(checkout));
    }

    private static long memTotalBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: fall through to "unknown"
        }
        return -1;
    }

    private static String gitCommit(Path checkout) {
        String head = git(checkout, "rev-parse", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        return git(checkout, "status", "--porcelain", "--untracked-files=no").isEmpty() ? head : head + "-dirty";
    }

    private static String git(Path checkout, String... arguments) {
        try {
            String[] command = new String[arguments.length + 3];
            command[0] = "git";
            command[1] = "-C";
            command[2] = checkout.toString();
            System.arraycopy(arguments, 0, command, 3, arguments.length);
            Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(git.getInputStream().readAllBytes()).strip();
            return git.waitFor(30, TimeUnit.SECONDS) && git.exitValue() == 0 ? output : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
