package io.shardflow.dataset.log;

import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;

/**
 * A dataset version's log at one moment, for commands that plan a change from it.
 *
 * @param history   every entry's summary, oldest first
 * @param tags      tag name to snapshot id, in the order they were created
 * @param expired   snapshots an expire entry has taken out of the live view
 */
public record LogView(Snapshot latest, List<CommitInfo> history, Map<String, Long> tags, RetentionPolicy retention,
                      NavigableSet<Long> expired) {

    public LogView {
        Objects.requireNonNull(latest, "latest");
        history = List.copyOf(history);
        tags = Map.copyOf(tags);
    }

    public long latestId() {
        return latest.snapshotId();
    }
}
