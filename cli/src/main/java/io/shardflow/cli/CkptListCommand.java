package io.shardflow.cli;

import io.shardflow.dataset.runs.CheckpointManifest;
import io.shardflow.dataset.runs.TrainingCheckpoints;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code shardflow ckpt list [RUN]}: the runs, or a run's saved steps. */
@Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Without RUN: every run with its saved steps and newest step. With RUN: each saved step (a step",
                "whose manifest exists; saves that did not finish are not listed) with its size, the dataset",
                "snapshots it read and whether it is pinned."})
final class CkptListCommand extends CkptSubcommand {

    @Parameters(index = "0", arity = "0..1", paramLabel = "RUN", description = "run name")
    String run;

    @Override
    public Integer call() {
        TrainingCheckpoints checkpoints = checkpoints();
        PrintWriter out = out();
        if (run == null) {
            List<Map<String, Object>> runs = new ArrayList<>();
            for (String name : checkpoints.runs()) {
                List<CheckpointManifest> saved = checkpoints.saved(name);
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("run", name);
                view.put("savedSteps", saved.size());
                view.put("latest", saved.isEmpty() ? null : summary(saved.get(saved.size() - 1), false));
                runs.add(view);
            }
            if (json) {
                out.println(JsonOutput.write(Map.of("runs", runs)));
            } else if (runs.isEmpty()) {
                out.println("no runs");
            } else {
                runs.forEach(r -> out.printf("%-24s %3d saved steps%s%n", r.get("run"), r.get("savedSteps"),
                        r.get("latest") instanceof Map<?, ?> latest ? ", newest " + latest.get("step") : ""));
            }
            return 0;
        }
        Set<Long> pins = checkpoints.pins(run).keySet();
        List<CheckpointManifest> saved = checkpoints.saved(run);
        if (json) {
            List<Map<String, Object>> steps = new ArrayList<>();
            saved.forEach(m -> steps.add(summary(m, pins.contains(m.step()))));
            out.println(JsonOutput.write(Map.of("run", run, "steps", steps)));
        } else if (saved.isEmpty()) {
            out.printf("run %s has no saved steps%n", run);
        } else {
            for (CheckpointManifest m : saved) {
                out.printf("step %-10d %s  %d ranks  %d files  %s  %s%s%n", m.step(), m.savedAt(), m.worldSize(),
                        m.files().size(), SnapshotSummary.humanBytes(m.bytes()), String.join(", ", datasets(m)),
                        pins.contains(m.step()) ? "  pinned" : "");
            }
        }
        return 0;
    }
}
