package io.shardflow.dataset.shard;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a main class in a JVM of its own, with this test's class path and a heap limit, for memory tests. */
public final class ForkedJvm {

    /** How the forked JVM ended and everything it printed. */
    public record Result(int exitCode, String output) {
    }

    private ForkedJvm() {
    }

    /**
     * @param output file that takes the JVM's stdout and stderr
     * @throws AssertionError when the JVM is still running after {@code limitSeconds} (it is killed)
     */
    public static Result run(String heap, long limitSeconds, Path output, Class<?> main, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), heap,
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", command.subList(4, command.size())) + " did not finish within "
                    + limitSeconds + " s under " + heap);
        }
        return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}
