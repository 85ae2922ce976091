package io.shardflow.cli;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code NAME VERSION [--snapshot N]}: the snapshot a dataset command looks at, the latest by default. */
final class SnapshotArgs {

    @Parameters(index = "0", paramLabel = "NAME", description = "dataset name")
    String name;
    @Parameters(index = "1", paramLabel = "VERSION", description = "dataset version")
    String version;
    @Option(names = "--snapshot", description = "snapshot id (default: latest)")
    Long snapshotId;

    /** Reads the whole log first: an expire entry after snapshot N is what says N has expired. */
    Snapshot in(CommitLog log) {
        Snapshot latest = log.latest();
        return snapshotId == null ? latest : log.snapshot(snapshotId);
    }
}
