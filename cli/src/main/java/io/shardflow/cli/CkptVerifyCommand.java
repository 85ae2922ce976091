package io.shardflow.cli;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.runs.CheckpointManifest;
import io.shardflow.dataset.runs.TrainingCheckpoints;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shardflow ckpt verify RUN [STEP] [--all]}: every file against its manifest, every snapshot still there. */
@Command(name = "verify", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Read every file of a saved step (the newest by default, or all with --all) and compare its size",
                "and SHA-256 with the manifest, and check that each dataset snapshot the step's reader position reads",
                "is still in the log and not expired (else resuming it fails). Exit 1 if anything is wrong."})
final class CkptVerifyCommand extends CkptSubcommand {

    @Parameters(index = "0", paramLabel = "RUN", description = "run name")
    String run;
    @Parameters(index = "1", arity = "0..1", paramLabel = "STEP", description = "step (default: the newest saved)")
    Long step;
    @Option(names = "--all", description = "verify every saved step of the run")
    boolean all;

    @Override
    public Integer call() {
        if (all && step != null) {
            throw new IllegalArgumentException("give STEP or --all, not both");
        }
        TrainingCheckpoints checkpoints = checkpoints();
        List<CheckpointManifest> targets = all ? checkpoints.saved(run)
                : List.of(requireStep(run, step == null ? OptionalLong.empty() : OptionalLong.of(step)));
        List<Map<String, Object>> results = new ArrayList<>();
        boolean ok = true;
        for (CheckpointManifest m : targets) {
            List<String> problems = new ArrayList<>(checkpoints.verify(m));
            problems.addAll(missingSnapshots(m));
            ok &= problems.isEmpty();
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("step", m.step());
            result.put("files", m.files().size());
            result.put("bytes", m.bytes());
            result.put("problems", problems);
            results.add(result);
            if (!json) {
                out().printf("run %s step %d: %s%n", run, m.step(), problems.isEmpty()
                        ? "ok (" + m.files().size() + " files, " + SnapshotSummary.humanBytes(m.bytes()) + ")"
                        : problems.size() + " problems");
                problems.forEach(p -> out().println("  " + p));
            }
        }
        if (json) {
            out().println(JsonOutput.write(Map.of("run", run, "ok", ok, "steps", results)));
        }
        return ok ? 0 : Shardflow.PROBLEM;
    }

    private List<String> missingSnapshots(CheckpointManifest m) {
        List<String> problems = new ArrayList<>();
        DatasetCatalog catalog = new DatasetCatalog(store());
        for (CheckpointManifest.DatasetPin pin : m.datasets()) {
            String name = pin.dataset() + "/" + pin.version();
            if (catalog.spec(pin.dataset(), pin.version()).isEmpty()) {
                problems.add("dataset " + name + " does not exist");
                continue;
            }
            LogView view = log(pin.dataset(), pin.version()).view();
            for (long snapshot : pin.snapshots()) {
                if (snapshot > view.latestId()) {
                    problems.add("snapshot " + snapshot + " of " + name + " is not in the log (latest " + view.latestId() + ")");
                } else if (view.expired().contains(snapshot)) {
                    problems.add("snapshot " + snapshot + " of " + name + " has expired: resuming this step fails");
                }
            }
        }
        return problems;
    }
}
