package io.shardflow.cli;

import io.shardflow.ingest.IngestApp;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "ingest", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow ingest ingest.properties",
                "  SHARDFLOW_BOOTSTRAP_SERVERS=127.0.0.1:9092 SHARDFLOW_REGISTRY_URL=http://127.0.0.1:8080/apis/registry/v3 \\",
                "    SHARDFLOW_S3_ENDPOINT=... bin/shardflow ingest",
                "Settings and their environment variables: docs/operating/services.md."},
        description = "Run ingest-app (Kafka Streams: validate, dedupe, assign to shards, seal).")
final class RunIngestCommand implements Callable<Integer> {

    @Parameters(arity = "0..1", paramLabel = "CONFIG", description = "properties file of ingest-app settings; SHARDFLOW_* environment variables override it (optional)")
    Path config;

    @Override
    public Integer call() {
        IngestApp.main(config == null ? new String[0] : new String[] {config.toString()});
        return 0;
    }
}
