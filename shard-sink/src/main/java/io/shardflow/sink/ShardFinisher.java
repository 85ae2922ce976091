package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.sink.commit.ShardCommitter;
import io.shardflow.sink.fault.CrashPoint;
import io.shardflow.sink.fault.CrashPoints;
import io.shardflow.sink.quarantine.ShardQuarantine;
import io.shardflow.sink.write.ShardBuilder;
import io.shardflow.sink.write.ShardUploader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Takes sealed shards into the commit log: build the HDF5 file, upload it create-only, then one
 * commit per dataset version. Progress is kept on each {@link PendingShard}, so after a failure the
 * next attempt resumes: a built file is not rebuilt, an uploaded object not uploaded again.
 */
final class ShardFinisher {

    /** What {@code done} gets for a quarantined shard: nothing was committed, no snapshot was made. */
    private static final CommitResult SET_ASIDE = new CommitResult(0L, List.of(), List.of());

    private final ShardBuilder builder;
    private final ShardUploader uploader;
    private final ShardCommitter committer;
    private final CrashPoints crashPoints;
    private final ShardQuarantine quarantine;

    ShardFinisher(ShardBuilder builder, ShardUploader uploader, ShardCommitter committer, CrashPoints crashPoints,
                  ShardQuarantine quarantine) {
        this.builder = builder;
        this.uploader = uploader;
        this.committer = committer;
        this.crashPoints = crashPoints;
        this.quarantine = quarantine;
    }

    /**
     * Finishes {@code pending} in order, one dataset version at a time. Each committed group is
     * removed from {@code pending} and handed to {@code done}; the first failure propagates and
     * leaves that group and the ones after it pending. A shard that cannot be built is quarantined
     * and handed to {@code done} on its own, with an empty result, as soon as its record is durable.
     *
     * @param sourceOffsets where each partition stands once the given shards are committed
     */
    void finish(List<PendingShard> pending, Function<Set<ShardId>, Map<String, Long>> sourceOffsets,
                BiConsumer<List<PendingShard>, CommitResult> done) {
        Map<String, List<PendingShard>> byVersion = new LinkedHashMap<>();
        for (PendingShard p : pending) {
            byVersion.computeIfAbsent(p.datasetVersion(), k -> new ArrayList<>()).add(p);
        }
        for (List<PendingShard> group : byVersion.values()) {
            List<ShardEntry> entries = new ArrayList<>(group.size());
            Set<ShardId> ids = new LinkedHashSet<>();
            for (PendingShard p : List.copyOf(group)) {
                if (!buildOrQuarantine(p, sourceOffsets)) {
                    group.remove(p);
                    pending.remove(p);
                    done.accept(List.of(p), SET_ASIDE);
                    continue;
                }
                entries.add(upload(p));
                ids.add(p.shard);
            }
            if (group.isEmpty()) {
                continue;
            }
            crashPoints.reach(CrashPoint.AFTER_UPLOAD);
            ShardId first = group.get(0).shard;
            CommitResult result = committer.commit(first.dataset(), first.version(), entries, sourceOffsets.apply(ids));
            crashPoints.reach(CrashPoint.AFTER_COMMIT);
            pending.removeAll(group);
            done.accept(group, result);
        }
    }

    /** Builds the shard's file unless done already; false if the shard cannot be built and is now quarantined. */
    private boolean buildOrQuarantine(PendingShard p, Function<Set<ShardId>, Map<String, Long>> sourceOffsets) {
        if (p.built != null || p.uploaded != null) {
            return true;
        }
        DatasetSpec spec = committer.spec(p.shard.dataset(), p.shard.version());
        try {
            p.built = builder.build(p.shard, spec, p.spool.readAll(), p.seal);
        } catch (RuntimeException e) {
            if (!ShardQuarantine.isShardAtFault(e)) {
                throw e;
            }
            quarantine.setAside(p.shard, p.seal, e, sourceOffsets.apply(Set.of(p.shard)));
            return false;
        }
        crashPoints.reach(CrashPoint.BEFORE_UPLOAD);
        return true;
    }

    private ShardEntry upload(PendingShard p) {
        if (p.uploaded == null) {
            p.uploaded = uploader.upload(p.built);
        }
        return p.uploaded;
    }
}
