package io.shardflow.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Prints a completion script generated from the command model, so it always matches the commands. */
@Command(name = "completion", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Print a bash or zsh completion script for shardflow, generated from its commands and options.",
        footerHeading = "%nExamples:%n",
        footer = {"  source <(bin/shardflow completion bash)              # bash, this shell",
                "  bin/shardflow completion zsh > ~/.zsh/_shardflow.sh   # zsh: source it from ~/.zshrc",
                "Put bin/ on the PATH (or alias shardflow=bin/shardflow): the script completes the command 'shardflow'."})
final class CompletionCommand implements Callable<Integer> {

    /** Which shell's script; checked so that a typo exits 2 although both get the same script. */
    enum Shell { bash, zsh }

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh (the same script: under zsh it loads compinit and bashcompinit)")
    Shell shell;
    @Spec
    CommandSpec command;

    @Override
    public Integer call() {
        // One script for both: under zsh it loads bashcompinit itself (it tests $ZSH_VERSION).
        String script = AutoComplete.bash("shardflow", command.root().commandLine());
        command.commandLine().getOut().print(script);
        command.commandLine().getOut().flush();
        return 0;
    }
}
