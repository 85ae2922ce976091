package io.shardflow.dataset.lifecycle;

import io.shardflow.dataset.log.CommitInfo;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.log.RetentionPolicy;
import java.time.Instant;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * Which snapshots an expire takes out of the live view. By policy: every snapshot the retention
 * policy does not keep, never a tagged one, never the latest. Explicitly ({@code through}): every
 * snapshot up to an id, refused if a tag names one of them.
 */
public final class Expiry {

    private Expiry() {
    }

    /** Snapshots to expire now (not already expired), by policy. */
    public static NavigableSet<Long> byPolicy(LogView view, RetentionPolicy policy, Instant now) {
        NavigableSet<Long> expire = new TreeSet<>();
        for (CommitInfo commit : view.history()) {
            long id = commit.snapshotId();
            if (!view.expired().contains(id) && !view.tags().containsValue(id)
                    && !policy.keeps(id, view.latestId(), commit.committedAt(), now)) {
                expire.add(id);
            }
        }
        return expire;
    }

    /** Every snapshot up to {@code through} not yet expired; refuses to drop a tagged one or the latest. */
    public static NavigableSet<Long> through(LogView view, long through) {
        if (through >= view.latestId()) {
            throw new LifecycleException("cannot expire through snapshot " + through + ": the latest ("
                    + view.latestId() + ") is always kept");
        }
        for (Map.Entry<String, Long> tag : view.tags().entrySet()) {
            if (tag.getValue() <= through) {
                throw new LifecycleException("expiring through snapshot " + through + " would drop snapshot "
                        + tag.getValue() + ", which tag '" + tag.getKey() + "' names; tags are kept forever: expire"
                        + " through an earlier snapshot or use the retention policy, which keeps tagged snapshots");
            }
        }
        NavigableSet<Long> expire = new TreeSet<>();
        for (long id = 1; id <= through; id++) {
            if (!view.expired().contains(id)) {
                expire.add(id);
            }
        }
        return expire;
    }

    /** Snapshots kept after expiring {@code expiring}: all of 1..latest minus the expired ones. */
    public static NavigableSet<Long> kept(long latestId, NavigableSet<Long> expired, NavigableSet<Long> expiring,
                                          OptionalLong upTo) {
        NavigableSet<Long> kept = new TreeSet<>();
        long last = upTo.orElse(latestId);
        for (long id = 1; id <= last; id++) {
            if (!expired.contains(id) && !expiring.contains(id)) {
                kept.add(id);
            }
        }
        return kept;
    }
}
