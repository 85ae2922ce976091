package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.sink.commit.ShardCommitter;
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
import org.apache.kafka.common.TopicPartition;

/**
 * Takes sealed shards into the commit log: build the HDF5 file, upload it create-only, then one
 * commit per dataset version. Progress is kept on each {@link PendingShard}, so after a failure the
 * next attempt resumes: a built file is not rebuilt, an uploaded object not uploaded again.
 */
final class ShardFinisher {

    private final ShardBuilder builder;
    private final ShardUploader uploader;
    private final ShardCommitter committer;
    private final SinkHook hook;

    ShardFinisher(ShardBuilder builder, ShardUploader uploader, ShardCommitter committer, SinkHook hook) {
        this.builder = builder;
        this.uploader = uploader;
        this.committer = committer;
        this.hook = hook;
    }

    /**
     * Finishes {@code pending} in order, one dataset version at a time. Each committed group is
     * removed from {@code pending} and handed to {@code done}; the first failure propagates and
     * leaves that group and the ones after it pending.
     *
     * @param sourceOffsets where each owned partition stands once the given shards are committed (every
     *                      partition, not only those that moved since the last consumer commit): recorded in the entry
     */
    void finish(List<PendingShard> pending, Function<Set<ShardId>, Map<TopicPartition, Long>> sourceOffsets,
                BiConsumer<List<PendingShard>, CommitResult> done) {
        Map<String, List<PendingShard>> byVersion = new LinkedHashMap<>();
        for (PendingShard p : pending) {
            byVersion.computeIfAbsent(p.datasetVersion(), k -> new ArrayList<>()).add(p);
        }
        for (List<PendingShard> group : byVersion.values()) {
            List<ShardEntry> entries = new ArrayList<>(group.size());
            Set<ShardId> ids = new LinkedHashSet<>();
            for (PendingShard p : group) {
                entries.add(upload(p));
                ids.add(p.shard);
            }
            hook.passed(SinkHook.Step.SHARDS_UPLOADED);
            ShardId first = group.get(0).shard;
            Map<String, Long> positions = new LinkedHashMap<>();
            sourceOffsets.apply(ids).forEach((partition, offset) -> positions.put(partition.toString(), offset));
            CommitResult result = committer.commit(first.dataset(), first.version(), entries, positions);
            hook.passed(SinkHook.Step.COMMIT_WRITTEN);
            pending.removeAll(group);
            done.accept(group, result);
        }
    }

    private ShardEntry upload(PendingShard p) {
        if (p.uploaded != null) {
            return p.uploaded;
        }
        if (p.built == null) {
            p.built = builder.build(p.shard, committer.spec(p.shard.dataset(), p.shard.version()), p.spool.readAll(), p.seal);
            hook.passed(SinkHook.Step.SHARD_BUILT);
        }
        p.uploaded = uploader.upload(p.built);
        return p.uploaded;
    }
}
