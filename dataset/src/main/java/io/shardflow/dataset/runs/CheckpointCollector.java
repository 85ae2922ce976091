package io.shardflow.dataset.runs;

import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.StoredObject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * {@code shardflow ckpt gc}: deletes what no kept checkpoint of a run needs.
 *
 * <ul>
 *   <li>Saved steps the retention drops: pointer, then manifest (from then on the step does not
 *       exist for readers), then every object in the step's folder. A saved step cannot change, so
 *       no safety window applies.</li>
 *   <li>Objects in step folders without a manifest (saves that were killed or are running now) and
 *       attempts that lost the race for a kept step's manifest: only once older than the safety
 *       window, which must exceed the longest save, and only if the step still has no manifest
 *       (re-read just before deleting) or the object is not one its manifest names.</li>
 *   <li>Pointers to steps without a manifest, older than the window.</li>
 * </ul>
 * Nothing a kept manifest names is ever deleted, nor the manifest itself.
 */
public final class CheckpointCollector {

    private static final int PAGE = 1000;
    private final TrainingCheckpoints checkpoints;
    private final ObjectStore store;
    private final Clock clock;

    public CheckpointCollector(TrainingCheckpoints checkpoints, Clock clock) {
        this.checkpoints = checkpoints;
        this.store = checkpoints.store();
        this.clock = clock;
    }

    /** Steps kept and dropped, objects deleted (or, dry run, that would be), unreferenced ones spared as too new. */
    public record Result(List<Long> kept, List<Long> dropped, List<String> deleted, long deletedBytes,
                         List<String> tooNew) {
    }

    public Result collect(String run, CheckpointRetention retention, Duration safetyWindow, boolean dryRun,
                          Consumer<String> progress) {
        Instant cutoff = clock.instant().minus(safetyWindow);
        Map<Long, CheckpointManifest> saved = new TreeMap<>();
        checkpoints.saved(run).forEach(m -> saved.put(m.step(), m));
        NavigableSet<Long> kept = retention.kept(saved.keySet(), checkpoints.pins(run).keySet());
        List<Long> dropped = saved.keySet().stream().filter(s -> !kept.contains(s)).toList();
        progress.accept(saved.size() + " saved steps; keeping " + kept.size() + " (" + retention + "), dropping "
                + dropped.size());
        Set<String> named = new HashSet<>();
        for (long step : kept) {
            saved.get(step).files().forEach(f -> named.add(f.key()));
            named.add(RunLayout.manifestKey(run, step));
        }
        Set<String> deleted = new LinkedHashSet<>();
        List<String> tooNew = new ArrayList<>();
        long[] bytes = {0};
        for (long step : dropped) {  // pointer and manifest first: the step stops existing as a whole
            delete(RunLayout.pointerKey(run, step), 0, dryRun, deleted, bytes);
            delete(RunLayout.manifestKey(run, step), 0, dryRun, deleted, bytes);
        }
        Set<Long> droppedSteps = new HashSet<>(dropped);
        Map<Long, Boolean> unsaved = new TreeMap<>();
        for (StoredObject object : listAll(RunLayout.stepsPrefix(run))) {
            OptionalLong step = stepOf(run, object.key());
            if (step.isEmpty() || named.contains(object.key())) {
                continue;
            }
            if (droppedSteps.contains(step.getAsLong())) {
                delete(object.key(), object.size(), dryRun, deleted, bytes);
            } else if (!object.lastModified().isBefore(cutoff)) {
                tooNew.add(object.key());
            } else if (kept.contains(step.getAsLong())
                    || unsaved.computeIfAbsent(step.getAsLong(), s -> checkpoints.manifest(run, s).isEmpty())) {
                // a losing attempt of a kept step, or a save that never finished (its manifest re-read now)
                delete(object.key(), object.size(), dryRun, deleted, bytes);
            }
        }
        for (StoredObject pointer : listAll(RunLayout.pointersPrefix(run))) {
            OptionalLong step = RunLayout.stepOfPointer(run, pointer.key());
            if (step.isPresent() && !kept.contains(step.getAsLong()) 
                    && pointer.lastModified().isBefore(cutoff) && checkpoints.manifest(run, step.getAsLong()).isEmpty()) {
                delete(pointer.key(), pointer.size(), dryRun, deleted, bytes);
            }
        }
        progress.accept((dryRun ? "would delete " : "deleted ") + deleted.size() + " objects (" + bytes[0]
                + " bytes); " + tooNew.size() + " unreferenced objects are inside the safety window of " + safetyWindow);
        return new Result(List.copyOf(kept), dropped, List.copyOf(deleted), bytes[0], tooNew);
    }

    private void delete(String key, long size, boolean dryRun, Set<String> deleted, long[] bytes) {
        if (!deleted.add(key)) {
            return;
        }
        if (!dryRun) {
            store.delete(key);
        }
        bytes[0] += size;
    }

    private List<StoredObject> listAll(String prefix) {
        List<StoredObject> all = new ArrayList<>();
        String cursor = null;
        List<StoredObject> page;
        do {
            page = store.listObjects(prefix, cursor, PAGE);
            all.addAll(page);
            if (!page.isEmpty()) {
                cursor = page.get(page.size() - 1).key();
            }
        } while (page.size() == PAGE);
        return all;
    }

    private static OptionalLong stepOf(String run, String key) {
        String steps = RunLayout.stepsPrefix(run);
        int slash = key.indexOf('/', steps.length());
        return slash < 0 ? OptionalLong.empty() : RunLayout.stepOfPrefix(run, key.substring(0, slash + 1));
    }
}
