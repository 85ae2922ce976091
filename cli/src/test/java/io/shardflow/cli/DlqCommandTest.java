package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A redrive must say what it re-publishes: nothing is selected by default, and --all cannot hide a filter. */
class DlqCommandTest {

    @TempDir
    Path work;

    @Test
    void shouldRefuseARedriveThatSelectsNothingOrMixesAllWithAFilter() {
        CliRun nothing = CliRun.of("dlq", "redrive", "--note", "fixed", "--stack-dir", work.toString());
        CliRun mixed = CliRun.of("dlq", "redrive", "--all", "--reason", "UNKNOWN_VERSION", "--note", "fixed", "--stack-dir", work.toString());
        CliRun noNote = CliRun.of("dlq", "redrive", "--all", "--stack-dir", work.toString());

        assertThat(nothing.exitCode()).isEqualTo(2);
        assertThat(nothing.err()).contains("select dead letters with --reason, --device or --record, or say --all");
        assertThat(mixed.exitCode()).isEqualTo(2);
        assertThat(mixed.err()).contains("--all cannot be combined");
        assertThat(noNote.exitCode()).isEqualTo(2);
        assertThat(noNote.err()).contains("--note");
    }
}
