package io.shardflow.cli;

import io.shardflow.dataset.log.CommitLog;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * What the commands that change a version's log share (tag, retention, compact, expire, delete):
 * the committer name recorded in the entries, progress lines on stderr, and a log that writes
 * checkpoints like shard-sink's, so the checkpoint chain stays complete whoever commits.
 */
abstract class DatasetLifecycleSubcommand extends DatasetVersionSubcommand {

    @Option(names = "--committer", defaultValue = "${env:USER:-shardflow-cli}",
            description = "name recorded as the committer of the new log entry (default: ${DEFAULT-VALUE})")
    String committer;
    @Option(names = "--json", description = "print the result as one JSON document")
    boolean json;

    CommitLog writableLog() {
        return new CommitLog(store(), name, version, clock);
    }

    /** Progress of the command as plain lines on stderr, prefixed with its name. */
    Consumer<String> progressLines() {
        String task = command.name();
        return line -> {
            command.commandLine().getErr().println(task + ": " + line);
            command.commandLine().getErr().flush();
        };
    }
}
