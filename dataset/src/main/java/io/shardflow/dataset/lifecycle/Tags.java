package io.shardflow.dataset.lifecycle;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryChange;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.spec.Names;
import java.util.Map;

/**
 * Tags name a snapshot, create-only: a tag is a log entry, so two commands racing to create the
 * same name are ordered by the log's create-only append and the second one sees the first and
 * refuses. Expiry keeps every tagged snapshot.
 */
public final class Tags {

    private Tags() {
    }

    /**
     * Appends a tag entry naming {@code snapshotId} (the latest when negative).
     *
     * @return the snapshot the tag names
     * @throws LifecycleException the tag exists, or the snapshot does not exist or has expired
     */
    public static long create(CommitLog log, String tag, long snapshotId, String committer) {
        Names.requireDatasetName("tag name", tag);
        long[] named = new long[1];
        log.append(committer, view -> {
            named[0] = snapshotId < 0 ? view.latestId() : snapshotId;
            check(view, tag, named[0]);
            return EntryChange.metadata(EntryKind.TAG, Map.of("tag", tag, "snapshot", Long.toString(named[0])));
        });
        return named[0];
    }

    private static void check(LogView view, String tag, long snapshotId) {
        Long existing = view.tags().get(tag);
        if (existing != null) {
            throw new LifecycleException("tag '" + tag + "' already names snapshot " + existing
                    + "; tags are create-only: choose another name");
        }
        if (snapshotId < 1 || snapshotId > view.latestId()) {
            throw new LifecycleException("snapshot " + snapshotId + " does not exist; the latest is " + view.latestId());
        }
        if (view.expired().contains(snapshotId)) {
            throw new LifecycleException("snapshot " + snapshotId + " has expired; it cannot be tagged");
        }
    }
}
