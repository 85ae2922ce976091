package io.shardflow.dataset.lifecycle;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CheckpointChains;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.StoredObject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Deletes the shard objects of a dataset version that no kept snapshot names.
 *
 * <p>Safety: the set of names to keep is computed from the log <em>after</em> the expire entry is
 * durable and re-read just before deleting, so a snapshot committed meanwhile is kept. An object
 * newer than the safety window is never deleted, whatever the log says: a shard-sink may have
 * uploaded it and not yet committed it (its commit follows the upload within seconds, or within its
 * retry budget during an outage). Besides {@code shards/}, checkpoints that opening no kept
 * snapshot reads are collected ({@link CheckpointChains}), under the same window: a reader may be
 * loading an older chain right now. Log entries, tags and quarantine records stay.
 */
public final class GarbageCollector {

    private static final int PAGE = 1000;

    private final ObjectStore store;
    private final Clock clock;

    public GarbageCollector(ObjectStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** What a collection found: objects deleted (or, dry run, that would be), and unreferenced ones kept as too new. */
    public record Result(List<String> deleted, long deletedBytes, List<String> tooNew, List<String> deletedCheckpoints) {
    }

    /**
     * @param kept the snapshots whose shards stay, as of the log {@code log} has read; snapshots the
     *             log gains before the listing ends are kept too
     */
    public Result collect(CommitLog log, String dataset, String version, NavigableSet<Long> kept, Duration safetyWindow,
                          boolean dryRun, Consumer<String> progress) {
        Instant cutoff = clock.instant().minus(safetyWindow);
        String prefix = DatasetLayout.versionPrefix(dataset, version) + "shards/";
        List<StoredObject> unreferenced = new ArrayList<>();
        long lastBefore = log.view().latestId();
        Set<String> referenced = log.objectKeysOf(withNewer(kept, lastBefore, log.view().latestId()));
        String cursor = null;
        List<StoredObject> page;
        long listed = 0;
        do {
            page = store.listObjects(prefix, cursor, PAGE);
            for (StoredObject object : page) {
                cursor = object.key();
                if (!referenced.contains(object.key())) {
                    unreferenced.add(object);
                }
            }
            listed += page.size();
        } while (page.size() == PAGE);
        progress.accept("listed " + listed + " shard objects, " + unreferenced.size() + " named by no kept snapshot");
        // Re-read: anything committed during the listing names objects that must stay.
        long latest = log.view().latestId();
        Set<String> stillNamed = latest == lastBefore ? referenced : log.objectKeysOf(withNewer(kept, lastBefore, latest));
        List<String> deleted = new ArrayList<>();
        List<String> tooNew = new ArrayList<>();
        long bytes = 0;
        for (StoredObject object : unreferenced) {
            if (stillNamed.contains(object.key())) {
                continue;
            }
            if (!object.lastModified().isBefore(cutoff)) {
                tooNew.add(object.key());
                continue;
            }
            if (!dryRun) {
                store.delete(object.key());
            }
            deleted.add(object.key());
            bytes += object.size();
        }
        progress.accept((dryRun ? "would delete " : "deleted ") + deleted.size() + " objects (" + bytes + " bytes); "
                + tooNew.size() + " unreferenced objects are inside the safety window of " + safetyWindow);
        List<String> checkpoints = collectCheckpoints(dataset, version, withNewer(kept, lastBefore, latest), latest,
                cutoff, dryRun);
        progress.accept((dryRun ? "would delete " : "deleted ") + checkpoints.size()
                + " checkpoints that opening no kept snapshot reads");
        return new Result(deleted, bytes, tooNew, checkpoints);
    }

    /**
     * Deletes the checkpoints outside every chain a reader of a kept snapshot (or of the latest)
     * follows. Checkpoints newer than what the log showed, or inside the window, stay: a committer
     * may be writing one on a base it just checked.
     */
    private List<String> collectCheckpoints(String dataset, String version, NavigableSet<Long> kept, long latest,
                                            Instant cutoff, boolean dryRun) {
        CheckpointChains chains = new CheckpointChains(store, dataset, version);
        NavigableMap<Long, StoredObject> existing = chains.list();
        NavigableSet<Long> opened = new TreeSet<>(kept);
        opened.add(Long.MAX_VALUE);
        NavigableSet<Long> needed = chains.needed(opened, existing.navigableKeySet());
        List<String> deleted = new ArrayList<>();
        for (Map.Entry<Long, StoredObject> checkpoint : existing.headMap(latest, true).entrySet()) {
            StoredObject object = checkpoint.getValue();
            if (!needed.contains(checkpoint.getKey()) && object.lastModified().isBefore(cutoff)) {
                if (!dryRun) {
                    store.delete(object.key());
                }
                deleted.add(object.key());
            }
        }
        return deleted;
    }

    private static NavigableSet<Long> withNewer(NavigableSet<Long> kept, long known, long latest) {
        NavigableSet<Long> all = new java.util.TreeSet<>(kept);
        for (long id = known + 1; id <= latest; id++) {
            all.add(id);
        }
        all.add(latest);
        return all;
    }
}
