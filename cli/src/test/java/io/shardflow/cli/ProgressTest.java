package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.ManualClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class ProgressTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-05-01T10:00:00Z"));
    private final StringWriter text = new StringWriter();

    @Test
    void shouldPrintAPlainLineAtEveryTenthWithRateAndEta() {
        try (Progress progress = new Progress(new PrintWriter(text), clock, Progress.Mode.LINES, "verify", "shards", 200)) {
            for (int i = 0; i < 200; i++) {
                clock.advance(Duration.ofMillis(50));
                progress.advance(1);
            }
        }

        String[] lines = text.toString().split("\n");
        assertThat(lines).hasSize(10);
        assertThat(lines[0]).isEqualTo("verify: 20/200 shards (10%), 20 shards/s, ETA 9 s");
        assertThat(lines[4]).isEqualTo("verify: 100/200 shards (50%), 20 shards/s, ETA 5 s");
        assertThat(lines[9]).isEqualTo("verify: 200 shards done in 10.0 s (20 shards/s)");
    }

    @Test
    void shouldPrintAPlainLineEveryFiveSecondsWhenProgressIsSlow() {
        try (Progress progress = new Progress(new PrintWriter(text), clock, Progress.Mode.LINES, "publish", "samples", 10_000)) {
            for (int second = 1; second <= 12; second++) {
                clock.advance(Duration.ofSeconds(1));
                progress.advance(10);
            }
        }

        assertThat(text.toString().split("\n")).containsExactly(
                "publish: 50/10000 samples (0%), 10 samples/s, ETA 16m35s",
                "publish: 100/10000 samples (1%), 10 samples/s, ETA 16m30s",
                "publish: 120 samples done in 12.0 s (10 samples/s)");
    }

    @Test
    void shouldRedrawOneLineWithABarOnATerminal() {
        try (Progress progress = new Progress(new PrintWriter(text), clock, Progress.Mode.BAR, "publish", "samples", 100)) {
            clock.advance(Duration.ofSeconds(1));
            progress.update(50);
            progress.update(40);
            clock.advance(Duration.ofSeconds(1));
            progress.update(100);
        }

        assertThat(text.toString()).doesNotContain("\n".repeat(2))
                .contains("\rpublish [###############...............] 50/100 samples  50%  50 samples/s  ETA 1 s")
                .endsWith("\rpublish [##############################] 100/100 samples 100%  50 samples/s  ETA --  " + System.lineSeparator());
    }

    @Test
    void shouldPrintNothingWhenSilent() {
        try (Progress progress = Progress.silent()) {
            progress.advance(5);
            assertThat(progress.done()).isEqualTo(5);
        }
    }

    @Test
    void shouldDrawABarOnlyOnAConsoleUnlessTheEnvironmentSaysOtherwise() {
        assertThat(Progress.Mode.from(null, true)).isEqualTo(Progress.Mode.BAR);
        assertThat(Progress.Mode.from("", false)).isEqualTo(Progress.Mode.LINES);
        assertThat(Progress.Mode.from("lines", true)).isEqualTo(Progress.Mode.LINES);
        assertThat(Progress.Mode.from("off", false)).isEqualTo(Progress.Mode.OFF);
        assertThatThrownBy(() -> Progress.Mode.from("fancy", true))
                .hasMessage("SHARDFLOW_PROGRESS must be bar, lines or off, not 'fancy'");
    }
}
