package io.shardflow.cli;

import io.shardflow.dataset.quarantine.QuarantineLog;
import io.shardflow.dataset.quarantine.QuarantinedShard;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shardflow dataset quarantine NAME VERSION}: the shards shard-sink set aside because it could not build them. */
@Command(name = "quarantine", description = "List the shards of a dataset version that shard-sink could not build and set aside.")
final class DatasetQuarantineCommand extends DatasetSubcommand {

    @Parameters(index = "0", paramLabel = "NAME")
    String name;
    @Parameters(index = "1", paramLabel = "VERSION")
    String version;
    @Option(names = "--json")
    boolean json;

    @Override
    public Integer call() {
        requireSpec(name, version);
        List<QuarantinedShard> shards = new QuarantineLog(store()).list(name, version);
        PrintWriter out = out();
        if (json) {
            out.println(JsonOutput.write(Map.of("dataset", name, "version", version, "quarantined", shards)));
            return 0;
        }
        if (shards.isEmpty()) {
            out.printf("%s/%s has no quarantined shards%n", name, version);
            return 0;
        }
        out.printf("%-44s  %-12s  %7s  %-24s  %s%n", "shard", "reason", "samples", "quarantined at", "detail");
        for (QuarantinedShard q : shards) {
            out.printf("%-44s  %-12s  %7d  %-24s  %s%n", q.shardId(), q.reason(), q.sampleCount(),
                    DatasetSnapshotsCommand.millis(q.quarantinedAt()), q.detail());
        }
        return 0;
    }
}
