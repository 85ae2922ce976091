package io.shardflow.cli.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JDK Flight Recorder recording in a running service JVM, started and dumped with {@code jcmd},
 * so the profile covers only the timed window of a stage, not the JVM's start-up.
 */
final class JfrRecording {

    private static final String NAME = "shardflow-bench";

    private final long pid;
    private final Path file;

    private JfrRecording(long pid, Path file) {
        this.pid = pid;
        this.file = file;
    }

    /** Java samples this often: a 10 s stage on 2 cores then gives thousands, enough for shares of a few per cent. */
    static final int JAVA_PERIOD_MS = 2;
    /** JFR takes one native sample per period, of a thread in native code, waiting or not. */
    static final int NATIVE_PERIOD_MS = 10;

    /**
     * Starts the JDK's "profile" settings with denser method sampling ({@link #JAVA_PERIOD_MS}) in
     * process {@code pid}; the settings file is written next to {@code file}.
     */
    static JfrRecording start(long pid, Path file) {
        Path settings = file.resolveSibling("bench-profile.jfc");
        try {
            String profile = Files.readString(Path.of(System.getProperty("java.home"), "lib", "jfr", "profile.jfc"));
            Files.writeString(settings, profile
                    .replace("method-sampling-java-interval\">10 ms", "method-sampling-java-interval\">" + JAVA_PERIOD_MS + " ms")
                    .replace("method-sampling-native-interval\">20 ms", "method-sampling-native-interval\">" + NATIVE_PERIOD_MS + " ms"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write JFR settings " + settings, e);
        }
        jcmd(pid, "JFR.start", "name=" + NAME, "settings=" + settings.toAbsolutePath());
        return new JfrRecording(pid, file);
    }

    /** Writes what was recorded so far to the file and stops the recording. */
    Path stop() {
        jcmd(pid, "JFR.dump", "name=" + NAME, "filename=" + file.toAbsolutePath());
        jcmd(pid, "JFR.stop", "name=" + NAME);
        return file;
    }

    private static void jcmd(long pid, String... command) {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
        line.addAll(List.of(command));
        try {
            Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0 || output.contains("Exception")) {
                throw new IllegalStateException(String.join(" ", line) + " failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run jcmd", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running jcmd", e);
        }
    }
}
