package io.shardflow.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes the stage profiles as {@code profile.md}: per stage, where the CPU went and the hottest methods. */
final class ProfileReport {

    static final String FILE = "profile.md";

    private ProfileReport() {
    }

    static Path write(Path dir, List<StageProfile> profiles, MachineInfo machine, String command) throws IOException {
        StringBuilder text = new StringBuilder("# Where the CPU goes, per stage, in steady state\n\n");
        text.append(String.format(Locale.ROOT, "Measured %s on %d cores, %s; commit %s.%n%n", machine.date(), machine.cores(),
                machine.jvm(), machine.gitCommit()));
        text.append("Reproduce: `").append(command).append("`\n\n");
        text.append(String.format(Locale.ROOT, "JDK Flight Recorder (settings `profile`, Java samples every %d ms) in the stage's "
                + "service JVM over its timed window only, after its warm-up (JIT compilation, first shards); a Java sample stands for %d ms of thread time, a native sample of a "
                + "thread not waiting for %d ms (JFR takes one native sample per period, so native work is a lower bound). A stack "
                + "counts for the innermost frame of a library or of our packages (a JDK copy inside Avro decoding counts as Avro). "
                + "JIT compilation and GC are not in the samples: their CPU is given per stage from the threads' own times (/proc).%n",
                JfrRecording.JAVA_PERIOD_MS, JfrRecording.JAVA_PERIOD_MS, JfrRecording.NATIVE_PERIOD_MS));
        for (StageProfile profile : profiles) {
            text.append(String.format(Locale.ROOT, "%n## %s%n%n%s: %.1f s wall, %.1f CPU-s in the service JVM, "
                    + "of which %.1f s JIT compiler threads and %.1f s the VM thread (serial GC, safepoints; GC pauses %.2f s); "
                    + "the table splits the rest, %d samples.%n%n", profile.stage(), profile.work(), profile.seconds(), profile.cpu().total(),
                    profile.cpu().jit(), profile.cpu().vm(), profile.gcPauseSeconds(), profile.samples()));
            table(text, "where", profile.categoryShare());
            text.append('\n');
            table(text, "hottest method (self)", profile.topMethodShare());
        }
        Files.createDirectories(dir);
        return Files.writeString(dir.resolve(FILE), text.toString());
    }

    private static void table(StringBuilder text, String what, Map<String, Double> shares) {
        text.append("| ").append(what).append(" | share of sampled CPU |\n|---|---|\n");
        shares.forEach((name, share) -> text.append(String.format(Locale.ROOT, "| %s | %.1f %% |%n", name.replace("|", "\\|"), share * 100)));
    }
}
