package io.shardflow.cli;

import io.shardflow.dataset.lifecycle.Expirer;
import io.shardflow.dataset.lifecycle.GarbageCollector;
import io.shardflow.dataset.lifecycle.SnapshotHolds;
import io.shardflow.dataset.log.RetentionPolicy;
import io.shardflow.dataset.log.SnapshotRanges;
import io.shardflow.dataset.runs.CheckpointLineage;
import io.shardflow.dataset.runs.TrainingCheckpoints;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code shardflow dataset expire NAME VERSION}: drops old snapshots and deletes the objects only they named. */
@Command(name = "expire", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Take old snapshots out of the live view (an expire entry) and delete the shard objects no kept",
                "snapshot names. Kept: the latest, every tagged snapshot, and what the retention policy keeps (the",
                "version's stored policy, see 'dataset retention', unless --keep-last/--keep-days are given).",
                "Objects younger than --safety-window are never deleted: a sink may not have committed them yet.",
                "Snapshots that a saved training checkpoint reads (see 'ckpt list') are kept like tagged ones,",
                "unless --force. Exit 1 if --through would drop a tagged snapshot or one a checkpoint needs."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow dataset expire cams v1 --keep-last 10 --dry-run",
                "  bin/shardflow dataset expire cams v1 --keep-days 30 --json",
                "  bin/shardflow dataset expire cams v1 --through 120"})
final class DatasetExpireCommand extends DatasetLifecycleSubcommand {

    @Mixin
    RetentionOptions retention;
    @Option(names = "--through", paramLabel = "N", description = "expire every snapshot up to N (refused if one is tagged)")
    Long through;
    @Option(names = "--safety-window", paramLabel = "DURATION", defaultValue = "PT1H",
            description = "never delete objects younger than this, ISO-8601 (default: ${DEFAULT-VALUE})")
    Duration safetyWindow;
    @Option(names = "--dry-run", description = "print what would be expired and deleted; change nothing")
    boolean dryRun;
    @Option(names = "--force", description = "also expire snapshots that saved training checkpoints need (resuming"
            + " those checkpoints then fails)")
    boolean force;

    @Override
    public Integer call() {
        requireSpec(name, version);
        if (through != null && retention.given()) {
            throw new IllegalArgumentException("--through cannot be combined with --keep-last or --keep-days");
        }
        RetentionPolicy policy = retention.given() ? retention.policy() : null;
        Expirer.Request request = new Expirer.Request(policy,
                through == null ? OptionalLong.empty() : OptionalLong.of(through), safetyWindow, dryRun, force);
        SnapshotHolds lineage = new CheckpointLineage(new TrainingCheckpoints(store()));
        Expirer.Result result = new Expirer(writableLog(), new GarbageCollector(store(), clock), clock, committer, lineage)
                .expire(name, version, request, progressLines());
        if (json) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("dataset", name);
            out.put("version", version);
            out.put("dryRun", dryRun);
            out.put("policy", result.policy().toString());
            out.put("snapshotId", result.snapshotId().isPresent() ? result.snapshotId().getAsLong() : null);
            out.put("expiredSnapshots", SnapshotRanges.format(result.expired()));
            out.put("deletedObjects", result.collected().deleted());
            out.put("deletedBytes", result.collected().deletedBytes());
            out.put("keptInsideSafetyWindow", result.collected().tooNew());
            out.put("deletedCheckpoints", result.collected().deletedCheckpoints());
            Map<String, Object> held = new LinkedHashMap<>();
            result.held().forEach((id, who) -> held.put(Long.toString(id), who));
            out.put("keptForTrainingCheckpoints", held);
            out().println(JsonOutput.write(out));
        } else {
            out().printf("%s%d snapshots expired (%s), %d objects %s (%d bytes), %d unreferenced objects younger than %s"
                    + " kept, %d superseded checkpoints %s%n", dryRun ? "dry run: " : "", result.expired().size(),
                    SnapshotRanges.format(result.expired()), result.collected().deleted().size(),
                    dryRun ? "to delete" : "deleted", result.collected().deletedBytes(),
                    result.collected().tooNew().size(), safetyWindow, result.collected().deletedCheckpoints().size(),
                    dryRun ? "to delete" : "deleted");
            result.held().forEach((id, who) -> out().printf("kept snapshot %d: training checkpoints need it (%s)%n", id,
                    String.join(", ", who)));
        }
        return 0;
    }
}
