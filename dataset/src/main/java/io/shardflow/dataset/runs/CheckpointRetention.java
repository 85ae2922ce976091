package io.shardflow.dataset.runs;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * Which saved steps of a run are kept (dataset/FORMAT.md, "Training checkpoints", retention; the
 * same rule as the Python {@code RetentionPolicy}): the last {@code keepLast}, the first step saved
 * in each window of {@code keepEvery} steps ({@code step / keepEvery}), every pinned step, and
 * always the newest.
 */
public record CheckpointRetention(int keepLast, OptionalLong keepEvery) {

    public CheckpointRetention {
        if (keepLast < 1) {
            throw new IllegalArgumentException("--keep-last must be >= 1 (the newest step is always kept), got "
                    + keepLast);
        }
        if (keepEvery.isPresent() && keepEvery.getAsLong() < 1) {
            throw new IllegalArgumentException("--keep-every must be >= 1, got " + keepEvery.getAsLong());
        }
    }

    public NavigableSet<Long> kept(Collection<Long> saved, Collection<Long> pinned) {
        List<Long> ordered = new TreeSet<>(saved).stream().toList();
        NavigableSet<Long> kept = new TreeSet<>(ordered.subList(Math.max(0, ordered.size() - keepLast), ordered.size()));
        for (long pin : pinned) {
            if (saved.contains(pin)) {
                kept.add(pin);
            }
        }
        if (keepEvery.isPresent()) {
            Map<Long, Long> firstInWindow = new HashMap<>();
            for (long step : ordered) {
                firstInWindow.putIfAbsent(step / keepEvery.getAsLong(), step);
            }
            kept.addAll(firstInWindow.values());
        }
        return kept;
    }

    @Override
    public String toString() {
        return "keep last " + keepLast + (keepEvery.isPresent() ? ", one every " + keepEvery.getAsLong() + " steps" : "")
                + ", pinned, newest";
    }
}
