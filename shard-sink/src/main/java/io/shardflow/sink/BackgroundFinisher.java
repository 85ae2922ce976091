package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs {@link ShardFinisher} off the poll thread, one round at a time, so the poll loop keeps reading
 * decisions (and stays in its group) while shards are built, uploaded and committed. One round at a
 * time keeps the commits strictly ordered; what a round achieved is handed back to the poll thread
 * by {@link #collect}, which alone touches the sink's bookkeeping, so offsets move only behind
 * commits that are durable.
 */
final class BackgroundFinisher {

    private final ShardFinisher finisher;
    private final Executor executor;
    private final int maxShardsPerRound;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Queue<Outcome> outcomes = new ConcurrentLinkedQueue<>();

    /** @param executor runs one round at a time (a single thread; inline in tests that drive the loop by hand) */
    BackgroundFinisher(ShardFinisher finisher, Executor executor) {
        this(finisher, executor, Integer.MAX_VALUE);
    }

    /**
     * @param maxShardsPerRound a round takes at most this many pending shards, the oldest: with a backlog
     *                          (a restart, a sink that fell behind) commits then come every few shards, each
     *                          moving the offsets on, instead of one commit after every pending shard is built
     */
    BackgroundFinisher(ShardFinisher finisher, Executor executor, int maxShardsPerRound) {
        if (maxShardsPerRound < 1) {
            throw new IllegalArgumentException("a round must take at least one shard, got " + maxShardsPerRound);
        }
        this.finisher = finisher;
        this.executor = executor;
        this.maxShardsPerRound = maxShardsPerRound;
    }

    boolean busy() {
        return busy.get();
    }

    /**
     * Starts a round over a copy of the first {@code maxShardsPerRound} of {@code pending} (seal order, so
     * commits stay in seal order); the caller must check {@link #busy()} first.
     */
    void start(List<PendingShard> pending, Function<Set<ShardId>, Map<TopicPartition, Long>> sourceOffsets) {
        List<PendingShard> round = new ArrayList<>(pending.subList(0, Math.min(pending.size(), maxShardsPerRound)));
        busy.set(true);
        executor.execute(() -> {
            long started = System.nanoTime();
            RuntimeException failure = null;
            try {
                finisher.finish(round, sourceOffsets, (group, result) -> outcomes.add(new Outcome(group, result, null, 0L)));
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                outcomes.add(new Outcome(null, null, failure, System.nanoTime() - started));
                busy.set(false);
            }
        });
    }

    /**
     * Hands what finished rounds achieved to the poll thread: each committed (or quarantined) group to
     * {@code done}, in order, then the end of the round to {@code ended} (null failure for success).
     */
    void collect(BiConsumer<List<PendingShard>, CommitResult> done, BiConsumer<RuntimeException, Duration> ended) {
        for (Outcome outcome = outcomes.poll(); outcome != null; outcome = outcomes.poll()) {
            if (outcome.group != null) {
                done.accept(outcome.group, outcome.result);
            } else {
                ended.accept(outcome.failure, Duration.ofNanos(outcome.nanos));
            }
        }
    }

    /** Waits for a running round to end: before partitions are given up, or the instance stops. */
    void awaitIdle() {
        boolean interrupted = false;
        while (busy.get()) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private record Outcome(List<PendingShard> group, CommitResult result, RuntimeException failure, long nanos) {
    }
}
