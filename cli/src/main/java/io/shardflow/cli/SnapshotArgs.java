package io.shardflow.cli;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code NAME VERSION [--snapshot N]}: the snapshot a dataset command looks at, the latest by default. */
final class SnapshotArgs {

    @Parameters(index = "0", paramLabel = "NAME")
    String name;
    @Parameters(index = "1", paramLabel = "VERSION")
    String version;
    @Option(names = "--snapshot", description = "snapshot id (default: latest)")
    Long snapshotId;

    Snapshot in(CommitLog log) {
        return snapshotId == null ? log.latest() : log.snapshot(snapshotId);
    }
}
