package io.shardflow.cli;

import io.shardflow.sink.ShardSinkApp;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "sink", description = "Run shard-sink (spool, write HDF5 shards, upload, commit snapshots).")
final class RunSinkCommand implements Callable<Integer> {

    @Parameters(arity = "0..1", paramLabel = "CONFIG", description = "properties file; SHARDFLOW_* env vars override it")
    Path config;

    @Override
    public Integer call() {
        ShardSinkApp.main(config == null ? new String[0] : new String[] {config.toString()});
        return 0;
    }
}
