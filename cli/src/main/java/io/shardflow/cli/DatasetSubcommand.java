package io.shardflow.cli;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every {@code dataset} subcommand shares: the endpoints, the output, and how the object store
 * is opened. Tests replace {@link #opener} (through a picocli factory) to run the commands in-process
 * against an in-memory store.
 */
abstract class DatasetSubcommand implements Callable<Integer> {

    @Mixin
    Endpoints endpoints;
    @Spec
    CommandSpec command;

    Function<Endpoints, ObjectStore> opener = DatasetCommand::store;
    Clock clock = Clock.systemUTC();
    private ObjectStore store;

    ObjectStore store() {
        if (store == null) {
            store = opener.apply(endpoints);
        }
        return store;
    }

    PrintWriter out() {
        return command.commandLine().getOut();
    }

    /** Progress of walking {@code shards} shards, on the error stream. */
    Progress shardProgress(String task, long shards) {
        return Progress.start(command.commandLine().getErr(), task, "shards", shards);
    }

    DatasetSpec requireSpec(String name, String version) {
        return new DatasetCatalog(store()).spec(name, version)
                .orElseThrow(() -> new IllegalArgumentException("no dataset " + name + "/" + version
                        + " (see 'shardflow dataset list')"));
    }

    CommitLog log(String name, String version) {
        return new CommitLog(store(), name, version, clock, 0);
    }
}
