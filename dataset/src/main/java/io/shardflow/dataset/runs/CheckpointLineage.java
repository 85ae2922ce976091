package io.shardflow.dataset.runs;

import io.shardflow.dataset.lifecycle.SnapshotHolds;
import io.shardflow.dataset.runs.CheckpointManifest.DatasetPin;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The dataset snapshots that saved training checkpoints need: every saved step (every manifest in
 * the bucket, whatever a retention policy would later drop) holds the snapshots its reader
 * position reads, so {@code dataset expire} keeps them. Reads every manifest of every run.
 */
public final class CheckpointLineage implements SnapshotHolds {

    private final TrainingCheckpoints checkpoints;

    public CheckpointLineage(TrainingCheckpoints checkpoints) {
        this.checkpoints = checkpoints;
    }

    @Override
    public NavigableMap<Long, List<String>> holds(String dataset, String version) {
        NavigableMap<Long, List<String>> holds = new TreeMap<>();
        for (String run : checkpoints.runs()) {
            for (CheckpointManifest manifest : checkpoints.saved(run)) {
                for (DatasetPin pin : manifest.datasets()) {
                    if (pin.dataset().equals(dataset) && pin.version().equals(version)) {
                        for (long snapshot : pin.snapshots()) {
                            List<String> holders = holds.computeIfAbsent(snapshot, id -> new ArrayList<>());
                            String holder = "run " + run + " step " + manifest.step();
                            if (!holders.contains(holder)) {
                                holders.add(holder);
                            }
                        }
                    }
                }
            }
        }
        return holds;
    }
}
