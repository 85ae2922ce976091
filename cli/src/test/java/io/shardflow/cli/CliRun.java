package io.shardflow.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One in-process run of {@code shardflow ARGS}, with its output captured (not a terminal: progress prints plain lines). */
record CliRun(int exitCode, String out, String err) {

    static CliRun of(String... args) {
        CommandLine cli = Shardflow.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }
}
