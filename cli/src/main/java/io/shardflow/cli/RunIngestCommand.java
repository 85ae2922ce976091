package io.shardflow.cli;

import io.shardflow.ingest.IngestApp;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "ingest", description = "Run ingest-app (Kafka Streams: validate, dedupe, assign to shards, seal).")
final class RunIngestCommand implements Callable<Integer> {

    @Parameters(arity = "0..1", paramLabel = "CONFIG", description = "properties file; SHARDFLOW_* env vars override it")
    Path config;

    @Override
    public Integer call() {
        IngestApp.main(config == null ? new String[0] : new String[] {config.toString()});
        return 0;
    }
}
