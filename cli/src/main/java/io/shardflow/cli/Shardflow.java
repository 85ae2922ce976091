package io.shardflow.cli;

import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/shardflow}: the one entry point for people and scripts. */
@Command(name = "shardflow", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Turn a Kafka stream of training samples into a versioned, growing HDF5 dataset in S3.",
        subcommands = {QuickstartCommand.class, StackCommand.class, DatasetCommand.class, CkptCommand.class, PublishCommand.class,
                RunIngestCommand.class, RunSinkCommand.class, GatewayCommand.class, BenchCommand.class, ChaosCommand.class,
                DoctorCommand.class, UiCommand.class, DlqCommand.class, SchemasCommand.class,
                CompletionCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:ok", "1:a problem was found (a bad shard, a failed check, a server that does not answer)",
                "2:usage or configuration error (an unknown option, a missing value, no endpoint configured)"},
        footerHeading = "%nEnvironment:%n",
        footer = {"  SHARDFLOW_BOOTSTRAP_SERVERS, SHARDFLOW_REGISTRY_URL, SHARDFLOW_S3_ENDPOINT,",
                "  SHARDFLOW_S3_ACCESS_KEY, SHARDFLOW_S3_SECRET_KEY, SHARDFLOW_S3_BUCKET:",
                "      where the servers are when no option names them; else the stack that",
                "      'shardflow stack up' started in SHARDFLOW_STACK_DIR (default .stack).",
                "  SHARDFLOW_PROGRESS=bar|lines|off: how long commands show progress on stderr.",
                "",
                "Every command answers -h/--help. Shell completion: shardflow completion bash|zsh"})
public final class Shardflow {

    /** Exit code of a finished command that found a problem (a bad shard, a failed check). */
    static final int PROBLEM = 1;
    /** Exit code of a command that was misused or misconfigured; picocli uses it for parameter errors. */
    static final int USAGE = CommandLine.ExitCode.USAGE;

    /** Held so the setting is not garbage-collected with the logger. */
    private static final java.util.logging.Logger APICURIO_JUL = java.util.logging.Logger.getLogger("io.apicurio");

    public static void main(String[] args) {
        // The registry client warns through java.util.logging about its shared Vert.x instance on
        // first use; that is expected for a CLI and would only clutter the quickstart's output.
        APICURIO_JUL.setLevel(java.util.logging.Level.SEVERE);
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Shardflow());
        cli.setExecutionStrategy(Shardflow::refuseUnknownArgumentsEvenWithHelp);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println(commandLine.getColorScheme().errorText("shardflow: " + messageOf(e)));
            return exitCodeOf(e);
        });
        return cli;
    }

    /**
     * picocli lets a help option win over arguments it could not match, so {@code shardflow nosuch --help}
     * printed the top-level help and exited 0, as if the command existed. An unknown command or argument
     * is a usage error whatever else the line asks for: the error, the suggestion, exit 2.
     */
    private static int refuseUnknownArgumentsEvenWithHelp(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult last = parsed;
        while (last.hasSubcommand()) {
            last = last.subcommand();
        }
        if (!last.unmatched().isEmpty()) {
            // execute() hands a parameter exception thrown here to the usual handler: message, suggestions, exit 2
            throw new CommandLine.UnmatchedArgumentException(last.commandSpec().commandLine(), last.unmatched());
        }
        return new CommandLine.RunLast().execute(parsed);
    }

    /**
     * A bad argument or setting found while running (no endpoint configured, an unknown dataset, a
     * bad tensor spec) is a usage error like picocli's own; anything else is a problem found.
     */
    static int exitCodeOf(Throwable e) {
        return e instanceof IllegalArgumentException || e instanceof ConfigException ? USAGE : PROBLEM;
    }

    private static String messageOf(Throwable e) {
        String message = e.getMessage();
        return message != null ? message : e.getClass().getSimpleName();
    }
}
