package io.shardflow.it.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Lets the integration tests start while scripts/test.sh is still building the container images:
 * the test command names a file in {@code SHARDFLOW_IMAGES_GATE} and writes the images stage's
 * outcome into it ({@code ready}, {@code failed}, {@code skipped}). A container variant waits here
 * for that word; the surefire run order puts those variants last, so the wait is rarely felt.
 * Without the variable (a developer's own Maven run) the images are taken to be there already.
 */
final class ImagesGate {

    static final String VARIABLE = "SHARDFLOW_IMAGES_GATE";
    private static final Duration LONGEST_WAIT = Duration.ofMinutes(45);

    private ImagesGate() {
    }

    static void awaitImages() {
        String named = System.getenv(VARIABLE);
        if (named == null || named.isBlank()) {
            return;
        }
        String outcome = awaitOutcome(Path.of(named), LONGEST_WAIT);
        Assumptions.assumeTrue(outcome.equals("ready"),
                "the images stage of the test command did not pass (" + outcome + "): the container variants cannot run; its own result says why");
    }

    /** The word in {@code gate} once one is written; fails the test after {@code longest}. */
    static String awaitOutcome(Path gate, Duration longest) {
        long deadline = System.nanoTime() + longest.toNanos();
        while (System.nanoTime() < deadline) {
            String outcome = read(gate);
            if (!outcome.isEmpty()) {
                return outcome;
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the images stage", e);
            }
        }
        return Assertions.fail("no outcome of the images stage in " + gate + " after " + longest);
    }

    private static String read(Path gate) {
        try {
            return Files.exists(gate) ? Files.readString(gate, StandardCharsets.UTF_8).strip() : "";
        } catch (IOException e) {
            return "";   // being written: read again on the next turn
        }
    }
}
