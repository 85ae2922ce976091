package io.shardflow.cli;

import io.shardflow.sink.ShardSinkApp;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "sink", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow sink sink.properties",
                "Settings and their environment variables: docs/operating/services.md."},
        description = "Run shard-sink (spool, write HDF5 shards, upload, commit snapshots).")
final class RunSinkCommand implements Callable<Integer> {

    @Parameters(arity = "0..1", paramLabel = "CONFIG", description = "properties file of shard-sink settings; SHARDFLOW_* environment variables override it (optional)")
    Path config;

    @Override
    public Integer call() {
        ShardSinkApp.main(config == null ? new String[0] : new String[] {config.toString()});
        return 0;
    }
}
