package io.shardflow.dataset.log;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * What the tag, retention and expire entries of a log say so far: tag names, the current retention
 * policy and the expired snapshots. Part of {@link CommitLogState}; not thread-safe.
 */
final class LifecycleState {

    static final String TAG = "tag";
    static final String TAG_SNAPSHOT = "snapshot";
    static final String EXPIRED = "expired";

    private final Map<String, Long> tags = new LinkedHashMap<>();
    private final NavigableSet<Long> expired = new TreeSet<>();
    private RetentionPolicy retention = RetentionPolicy.NONE;

    void apply(CommitEntry entry) {
        switch (entry.kind()) {
            case TAG -> {
                String name = entry.details().get(TAG);
                long snapshot = Long.parseLong(entry.details().get(TAG_SNAPSHOT));
                // Create-only: the first entry naming a tag wins; CommitLog never writes a second.
                tags.putIfAbsent(name, snapshot);
            }
            case RETENTION -> retention = RetentionPolicy.fromDetails(entry.details());
            case EXPIRE -> expired.addAll(SnapshotRanges.parse(entry.details().get(EXPIRED)));
            default -> { }
        }
    }

    Map<String, Long> tags() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(tags));
    }

    RetentionPolicy retention() {
        return retention;
    }

    NavigableSet<Long> expired() {
        return Collections.unmodifiableNavigableSet(new TreeSet<>(expired));
    }

    boolean isExpired(long snapshotId) {
        return expired.contains(snapshotId);
    }
}
