package io.shardflow.cli;

import io.shardflow.dataset.runs.CheckpointManifest;
import io.shardflow.dataset.runs.TrainingCheckpoints;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import picocli.CommandLine.Option;

/** What the {@code ckpt} subcommands share: the store (as the dataset commands open it), {@code --json}, views. */
abstract class CkptSubcommand extends DatasetSubcommand {

    @Option(names = "--json", description = "print the result as one JSON document")
    boolean json;

    TrainingCheckpoints checkpoints() {
        return new TrainingCheckpoints(store());
    }

    CheckpointManifest requireStep(String run, OptionalLong step) {
        TrainingCheckpoints checkpoints = checkpoints();
        var found = step.isPresent() ? checkpoints.manifest(run, step.getAsLong()) : checkpoints.latest(run);
        return found.orElseThrow(() -> new IllegalArgumentException("run '" + run + "' has no saved step"
                + (step.isPresent() ? " " + step.getAsLong() : "") + " (see 'shardflow ckpt list " + run + "')"));
    }

    /** One saved step in a few fields, for lists. */
    static Map<String, Object> summary(CheckpointManifest m, boolean pinned) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("run", m.run());
        view.put("step", m.step());
        view.put("savedAt", m.savedAt().toString());
        view.put("worldSize", m.worldSize());
        view.put("files", m.files().size());
        view.put("bytes", m.bytes());
        view.put("datasets", datasets(m));
        view.put("pinned", pinned);
        return view;
    }

    static List<String> datasets(CheckpointManifest m) {
        List<String> out = new ArrayList<>();
        m.datasets().forEach(d -> out.add(d.dataset() + "/" + d.version() + "@" + d.snapshotId()
                + (d.sinceSnapshot().isPresent() ? " (new since " + d.sinceSnapshot().getAsLong() + ")" : "")));
        return out;
    }

    static String position(CheckpointManifest m) {
        if (m.readerState() == null) {
            return "no reader position";
        }
        return "epoch " + m.readerState().path("epoch").asLong() + ", " + m.readerState().path("consumed").asLong()
                + " of " + m.readerState().path("samples").asLong() + " samples consumed";
    }
}
