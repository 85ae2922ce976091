package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import io.shardflow.dataset.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ChaosProgressLinesTest {

    @Test
    void shouldPrintPlainLinesForEachStageAndCloseTheFirstWhenTheSecondStarts() {
        StringWriter text = new StringWriter();
        PrintWriter err = new PrintWriter(text, true);
        ManualClock clock = new ManualClock(Instant.parse("2026-05-01T10:00:00Z"));
        ChaosProgressLines progress = new ChaosProgressLines(
                (task, unit, total) -> new Progress(err, clock, Progress.Mode.LINES, task, unit, total));

        progress.stage("chaos publish", "samples", 1000);
        clock.advance(Duration.ofSeconds(10));
        progress.reached(500);
        progress.stage("chaos drain", "samples", 1000);
        clock.advance(Duration.ofSeconds(2));
        progress.reached(1000);
        progress.finished();
        progress.finished();

        assertThat(text.toString().lines().toList()).containsExactly(
                "chaos publish: 500/1000 samples (50%), 50 samples/s, ETA 10 s",
                "chaos publish: 500 samples done in 10.0 s (50 samples/s)",
                "chaos drain: 1000 samples done in 2.0 s (500 samples/s)");
    }

    @Test
    void shouldIgnoreCountsBeforeAnyStage() {
        StringWriter text = new StringWriter();
        ChaosProgressLines progress = new ChaosProgressLines((task, unit, total) -> {
            throw new AssertionError("no stage was started");
        });

        progress.reached(10);
        progress.finished();

        assertThat(text.toString()).isEmpty();
    }
}
