package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.sink.commit.ShardCommitter;
import io.shardflow.sink.quarantine.ShardQuarantine;
import io.shardflow.sink.write.ShardBuilder;
import io.shardflow.sink.write.ShardUploader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

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
    private final SinkHook hook;
    private final ShardQuarantine quarantine;
    private final ExecutorService workers;
    private final int threads;

    /**
     * @param workers builds and uploads the shards of one commit in parallel; bounded, owned by the caller
     * @param threads how many threads {@code workers} runs, to share a round's shards among them
     */
    ShardFinisher(ShardBuilder builder, ShardUploader uploader, ShardCommitter committer, SinkHook hook,
                  ShardQuarantine quarantine, ExecutorService workers, int threads) {
        this.workers = workers;
        this.threads = threads;
        this.builder = builder;
        this.uploader = uploader;
        this.committer = committer;
        this.hook = hook;
        this.quarantine = quarantine;
    }

    /**
     * Finishes {@code pending} in order, one dataset version at a time. Each committed group is
     * removed from {@code pending} and handed to {@code done}; the first failure propagates and
     * leaves that group and the ones after it pending. A shard that cannot be built is quarantined
     * and handed to {@code done} on its own, with an empty result, as soon as its record is durable.
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
            List<PendingShard> shards = List.copyOf(group);
            List<ShardEntry> prepared = prepareAll(shards, sourceOffsets);
            for (int i = 0; i < shards.size(); i++) {
                PendingShard p = shards.get(i);
                if (prepared.get(i) == null) {
                    group.remove(p);
                    pending.remove(p);
                    done.accept(List.of(p), SET_ASIDE);
                    continue;
                }
                entries.add(prepared.get(i));
                ids.add(p.shard);
            }
            if (group.isEmpty()) {
                continue;
            }
            hook.passed(SinkHook.Step.SHARDS_UPLOADED);
            ShardId first = group.get(0).shard;
            CommitResult result = committer.commit(first.dataset(), first.version(), entries, positions(sourceOffsets.apply(ids)));
            hook.passed(SinkHook.Step.COMMIT_WRITTEN);
            pending.removeAll(group);
            done.accept(group, result);
        }
    }

    /**
     * Builds and uploads the shards in parallel, each at most once, and waits for all of them, so no
     * work on a shard outlives this call. Entries in the order of {@code shards}; null for a shard now
     * quarantined. The first failure is thrown once every shard has stopped; progress made on the
     * others stays on their {@link PendingShard} for the next attempt.
     */
    private List<ShardEntry> prepareAll(List<PendingShard> shards, Function<Set<ShardId>, Map<TopicPartition, Long>> sourceOffsets) {
        List<CompletableFuture<ShardEntry>> running = new ArrayList<>(shards.size());
        shards.forEach(p -> running.add(new CompletableFuture<>()));
        for (List<Integer> chain : LaneChains.of(shards.stream().map(p -> p.shard).toList(), threads)) {
            workers.execute(() -> prepareChain(chain, shards, running, sourceOffsets));
        }
        List<ShardEntry> entries = new ArrayList<>(shards.size());
        RuntimeException failure = null;
        for (Future<ShardEntry> shard : running) {
            try {
                entries.add(awaitUninterruptibly(shard));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                failure = failure != null ? failure : cause;
            }
        }
        if (failure != null) {
            throw failure;
        }
        return entries;
    }

    /**
     * Builds and uploads a chain's shards one after another; a shard that fails does not stop the
     * others (as when each ran on its own), an {@link Error} does.
     */
    private void prepareChain(List<Integer> chain, List<PendingShard> shards, List<CompletableFuture<ShardEntry>> results,
            Function<Set<ShardId>, Map<TopicPartition, Long>> sourceOffsets) {
        Error fatal = null;
        for (int index : chain) {
            CompletableFuture<ShardEntry> result = results.get(index);
            if (fatal != null) {
                result.completeExceptionally(fatal);
                continue;
            }
            PendingShard p = shards.get(index);
            try {
                result.complete(buildOrQuarantine(p, sourceOffsets) ? upload(p) : null);
            } catch (Error e) {
                fatal = e;
                result.completeExceptionally(e);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }
    }

    /** Waits even when interrupted: the shard's work must end before its {@link PendingShard} is handed back. */
    private static ShardEntry awaitUninterruptibly(Future<ShardEntry> shard) throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return shard.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Builds the shard's file unless done already; false if the shard cannot be built and is now quarantined. */
    private boolean buildOrQuarantine(PendingShard p, Function<Set<ShardId>, Map<TopicPartition, Long>> sourceOffsets) {
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
            quarantine.setAside(p.shard, p.seal, e, positions(sourceOffsets.apply(Set.of(p.shard))));
            return false;
        }
        hook.passed(SinkHook.Step.SHARD_BUILT);
        return true;
    }

    /**
     * Uploads the built shard unless done already. Once stored, its memory or file is freed at once
     * (the commit needs only the entry); a shard built in memory whose upload failed is written to
     * disk to wait for the retry, so an object-store outage does not hold a round's shards in memory.
     */
    private ShardEntry upload(PendingShard p) {
        if (p.uploaded == null) {
            try {
                p.uploaded = uploader.upload(p.built);
            } catch (RuntimeException e) {
                keepOnDisk(p, e);
                throw e;
            }
            p.built.release();
        }
        return p.uploaded;
    }

    private static void keepOnDisk(PendingShard p, RuntimeException uploadFailure) {
        if (!p.built.inMemory()) {
            return;
        }
        try {
            p.built = p.built.spilled();
        } catch (RuntimeException e) {
            // No room on disk either: the next attempt builds the shard again from Kafka.
            uploadFailure.addSuppressed(e);
            p.built.release();
            p.built = null;
        }
    }

    /** Partition positions as the commit log and quarantine records write them: "topic-partition" to offset. */
    private static Map<String, Long> positions(Map<TopicPartition, Long> offsets) {
        Map<String, Long> positions = new LinkedHashMap<>();
        offsets.forEach((partition, offset) -> positions.put(partition.toString(), offset));
        return positions;
    }
}
