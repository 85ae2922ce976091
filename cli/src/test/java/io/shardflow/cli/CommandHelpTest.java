package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/** Walks the whole command model: every command answers --help with exit 0 and describes every argument. */
class CommandHelpTest {

    @TestFactory
    Stream<DynamicTest> shouldAnswerHelpWithExitZeroAndDescribeEveryOptionOfEveryCommand() {
        List<List<String>> paths = new ArrayList<>();
        collect(Shardflow.commandLine(), new ArrayList<>(), paths);
        assertThat(paths).extracting(p -> String.join(" ", p))
                .contains("dataset verify", "dataset create", "publish", "bench", "chaos", "doctor", "completion", "stack up", "ui",
                        "dlq redrive");
        return paths.stream().map(path -> DynamicTest.dynamicTest(String.join(" ", path) + " --help", () -> {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            CliRun run = run(args.toArray(String[]::new));

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains("Usage: shardflow", "-h, --help");
            CommandSpec spec = specOf(path);
            assertThat(String.join(" ", spec.usageMessage().description())).as("summary of %s", path).isNotBlank();
            for (ArgSpec arg : spec.args()) {
                assertThat(String.join(" ", arg.description())).as("description of %s in %s", arg.paramLabel(), path)
                        .isNotBlank();
            }
            // picocli renders descriptions through String.format: a lone % would print raw, with a warning
            for (String line : spec.usageMessage().description()) {
                assertThatCode(() -> String.format(line)).as("summary of %s", path).doesNotThrowAnyException();
            }
        }));
    }

    @Test
    void shouldRefuseAnUnknownCommandWithExitTwoEvenWhenHelpIsAsked() {
        CliRun top = run("nosuch", "--help");
        CliRun nested = run("dataset", "nosuch", "--help");
        CliRun option = run("dataset", "verify", "--nosuch", "--help");

        assertThat(top.exitCode()).isEqualTo(2);
        assertThat(top.err()).contains("Unmatched argument", "'nosuch'");
        assertThat(top.out()).doesNotContain("Commands:");
        assertThat(nested.exitCode()).isEqualTo(2);
        assertThat(nested.err()).contains("'nosuch'");
        assertThat(option.exitCode()).isEqualTo(2);
        assertThat(option.err()).contains("--nosuch");
    }

    @Test
    void shouldSuggestTheCommandMeantForATypo() {
        CliRun run = run("datset", "list");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("Did you mean", "dataset");
    }

    @Test
    void shouldAnswerHelpForTheConsoleAndTheRedriveCommands() {
        CliRun ui = run("ui", "--help");
        CliRun redrive = run("dlq", "redrive", "--help");

        assertThat(ui.exitCode()).isZero();
        assertThat(ui.out()).contains("Usage: shardflow ui", "--port", "--bind", "SHARDFLOW_CONSOLE_TOKEN_FILE");
        assertThat(redrive.exitCode()).isZero();
        assertThat(redrive.out()).contains("--reason", "--record", "--note", "audit/redrive");
    }

    @Test
    void shouldPrintHelpForDatasetVerifyInsteadOfComplainingAboutMissingParameters() {
        CliRun run = run("dataset", "verify", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("NAME", "VERSION", "--snapshot", "Examples:").doesNotContain("Missing required");
    }

    @Test
    void shouldPrintTheProjectVersionOnEveryCommand() {
        String expected = "shardflow " + VersionProvider.version();

        assertThat(VersionProvider.version()).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(run("--version").out()).startsWith(expected);
        assertThat(run("bench", "--version").out()).startsWith(expected);
        assertThat(run("dataset", "verify", "--version").out()).startsWith(expected);
        // --version of publish and dataset create names the dataset version: -V prints ours.
        assertThat(run("publish", "-V").out()).startsWith(expected);
        assertThat(run("dataset", "create", "-V").out()).startsWith(expected);
    }

    @Test
    void shouldExitTwoOnUsageErrors() {
        CliRun unknown = run("bench", "--no-such-option");
        CliRun missing = run("dataset", "verify", "cams");

        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("Unknown option: '--no-such-option'");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("Missing required parameter");
    }

    @Test
    void shouldExitTwoWhenNoEndpointIsConfigured() {
        CliRun run = run("dataset", "list", "--stack-dir", "/nonexistent/stack", "--s3-endpoint", "");

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
        assertThat(run.err()).contains("no --s3-endpoint given");
    }

    @Test
    void shouldPrintACompletionScriptForBashAndZshFromTheCommandModel() {
        CliRun bash = run("completion", "bash");
        CliRun zsh = run("completion", "zsh");

        assertThat(bash.exitCode()).isZero();
        assertThat(bash.out()).contains("complete -F _complete_shardflow", "dataset", "verify", "--snapshot", "doctor");
        assertThat(bash.out()).contains("ZSH_VERSION", "autoload -U +X bashcompinit && bashcompinit");
        assertThat(zsh.out()).isEqualTo(bash.out());
        assertThat(run("completion", "fish").exitCode()).isEqualTo(2);
    }

    private static void collect(CommandLine command, List<String> path, List<List<String>> into) {
        into.add(List.copyOf(path));
        command.getSubcommands().forEach((name, sub) -> {
            List<String> next = new ArrayList<>(path);
            next.add(name);
            collect(sub, next, into);
        });
    }

    private static CommandSpec specOf(List<String> path) {
        CommandLine command = Shardflow.commandLine();
        for (String name : path) {
            command = command.getSubcommands().get(name);
        }
        return command.getCommandSpec();
    }

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }
}
