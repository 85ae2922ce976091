package io.shardflow.dataset.log;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The change a lifecycle command wants to append as the next entry, before it has an id: the
 * planner of {@link CommitLog#append} returns one after looking at the log as it is now.
 */
public record EntryChange(EntryKind kind, List<ShardEntry> added, List<String> removed, Map<String, String> details) {

    public EntryChange {
        Objects.requireNonNull(kind, "kind");
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        details = Map.copyOf(details);
    }

    public static EntryChange metadata(EntryKind kind, Map<String, String> details) {
        return new EntryChange(kind, List.of(), List.of(), details);
    }
}
