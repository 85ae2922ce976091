package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated completion script, loaded into real shells: bash through its completion variables,
 * zsh as an interactive shell on a pseudo-terminal (zpty) that is sent a TAB, as a user would.
 */
class ShellCompletionTest {

    @TempDir
    Path dir;

    @Test
    void shouldCompleteSubcommandsAndOptionsInBash() throws Exception {
        Path script = script();
        String bash = """
                source '%s'
                compopt() { :; }  # a builtin that only works inside a TAB press; completion results do not depend on it
                complete_line() { COMP_WORDS=($1); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                  _complete_shardflow shardflow "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; echo "${COMPREPLY[*]}"; }
                complete_line 'shardflow dataset ve'
                complete_line 'shardflow chaos --lo'
                """.formatted(script);

        List<String> lines = run(List.of("bash", "-c", bash)).lines().toList();

        assertThat(lines).containsExactly("verify", "--long");
    }

    @Test
    void shouldCompleteSubcommandsAndOptionsInAnInteractiveZsh() throws Exception {
        assumeTrue(onPath("zsh"), "zsh is not installed (scripts/test.sh installs it where apt-get can)");
        Path script = script();
        Path home = Files.createDirectories(dir.resolve("zdotdir"));
        Files.writeString(home.resolve(".zshrc"), "autoload -U compinit && compinit -u\nsource '" + script + "'\nPS1='> '\n");
        String zsh = """
                zmodload zsh/zpty
                zpty -b shell "ZDOTDIR='%s' zsh -i"
                zpty -w -n shell $'shardflow dataset ve\\t'
                zpty -r shell first '*verify*'
                zpty -w -n shell $'\\x15shardflow chaos --lo\\t'
                zpty -r shell second '*--long*'
                print -r -- "completed: ${${first##*shardflow dataset }%%%%[[:space:]]*} ${${second##*shardflow chaos }%%%%[[:space:]]*}"
                zpty -d shell
                """.formatted(home);

        String out = run(List.of("zsh", "-f", "-c", zsh));

        assertThat(out).contains("completed: verify --long");
    }

    private Path script() throws IOException {
        CliRun completion = CliRun.of("completion", "zsh");
        assertThat(completion.exitCode()).isZero();
        return Files.writeString(dir.resolve("shardflow-completion.sh"), completion.out());
    }

    private static String run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command.get(0) + " did not finish within 60 s: " + new String(
                    process.getInputStream().readNBytes(4096), StandardCharsets.UTF_8));
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(out).isZero();
        return out.replaceAll("\u001B\\[[0-9;?]*[A-Za-z]|[\b\r]|\u001B[=>]", "");
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        return path != null && java.util.Arrays.stream(path.split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, program)));
    }
}
