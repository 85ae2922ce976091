package io.shardflow.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/shardflow}: the one entry point for people and scripts. */
@Command(name = "shardflow", mixinStandardHelpOptions = true, version = "shardflow 0.1.0",
        description = "Turn a Kafka stream of training samples into a versioned, growing HDF5 dataset in S3.",
        subcommands = {QuickstartCommand.class, StackCommand.class, DatasetCommand.class, PublishCommand.class,
                RunIngestCommand.class, RunSinkCommand.class, BenchCommand.class, ChaosCommand.class, CommandLine.HelpCommand.class})
public final class Shardflow {

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
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println(commandLine.getColorScheme().errorText("shardflow: " + messageOf(e)));
            return 1;
        });
        return cli;
    }

    private static String messageOf(Throwable e) {
        String message = e.getMessage();
        return message != null ? message : e.getClass().getSimpleName();
    }
}
