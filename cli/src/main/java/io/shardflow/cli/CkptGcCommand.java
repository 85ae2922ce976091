package io.shardflow.cli;

import io.shardflow.dataset.runs.CheckpointCollector;
import io.shardflow.dataset.runs.CheckpointRetention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shardflow ckpt gc RUN...|--all-runs --keep-last N [--keep-every K]}: deletes what no kept checkpoint needs. */
@Command(name = "gc", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Keep the last --keep-last saved steps, the first step of every --keep-every window, the pinned",
                "steps and always the newest; delete the other saved steps (pointer, manifest, then files), the files",
                "of saves that never finished and of attempts that lost their step, and dangling pointers. Objects",
                "younger than --safety-window are never deleted unless their step is dropped: a save may be writing",
                "them (make the window longer than your longest save). Nothing a kept manifest names is deleted."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow ckpt gc r7 --keep-last 3 --dry-run",
                "  bin/shardflow ckpt gc --all-runs --keep-last 2 --keep-every 10000 --json"})
final class CkptGcCommand extends CkptSubcommand {

    @Parameters(arity = "0..*", paramLabel = "RUN", description = "runs to collect")
    List<String> runs;
    @Option(names = "--all-runs", description = "collect every run in the bucket")
    boolean allRuns;
    @Option(names = "--keep-last", required = true, paramLabel = "N", description = "saved steps to keep, newest first (>= 1)")
    int keepLast;
    @Option(names = "--keep-every", paramLabel = "K", description = "also keep the first saved step of every K steps")
    Long keepEvery;
    @Option(names = "--safety-window", paramLabel = "DURATION", defaultValue = "PT6H",
            description = "never delete unfinished saves younger than this, ISO-8601 (default: ${DEFAULT-VALUE})")
    Duration safetyWindow;
    @Option(names = "--dry-run", description = "print what would be deleted; delete nothing")
    boolean dryRun;

    @Override
    public Integer call() {
        CheckpointRetention retention = new CheckpointRetention(keepLast,
                keepEvery == null ? OptionalLong.empty() : OptionalLong.of(keepEvery));
        if (allRuns == (runs != null && !runs.isEmpty())) {
            throw new IllegalArgumentException("name the runs to collect, or give --all-runs");
        }
        List<String> targets = allRuns ? checkpoints().runs() : runs;
        CheckpointCollector collector = new CheckpointCollector(checkpoints(), clock);
        List<Map<String, Object>> results = new ArrayList<>();
        for (String run : targets) {
            CheckpointCollector.Result r = collector.collect(run, retention, safetyWindow, dryRun,
                    line -> command.commandLine().getErr().println("gc " + run + ": " + line));
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("run", run);
            view.put("kept", r.kept());
            view.put("dropped", r.dropped());
            view.put("deletedObjects", r.deleted());
            view.put("deletedBytes", r.deletedBytes());
            view.put("keptInsideSafetyWindow", r.tooNew());
            results.add(view);
            if (!json) {
                out().printf("%srun %s: kept steps %s, dropped %s; %d objects %s (%s), %d younger than %s kept%n",
                        dryRun ? "dry run: " : "", run, r.kept(), r.dropped(), r.deleted().size(),
                        dryRun ? "to delete" : "deleted", SnapshotSummary.humanBytes(r.deletedBytes()), r.tooNew().size(),
                        safetyWindow);
            }
        }
        if (json) {
            out().println(JsonOutput.write(Map.of("dryRun", dryRun, "retention", retention.toString(), "runs", results)));
        }
        return 0;
    }
}
