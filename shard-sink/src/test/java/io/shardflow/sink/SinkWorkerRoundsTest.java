package io.shardflow.sink;

import static io.shardflow.sink.SinkHarness.P0;
import static io.shardflow.sink.SinkHarness.threeAndSeal;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finishing rounds on their own thread, as in production: the poll loop goes on, offsets wait for the commit. */
class SinkWorkerRoundsTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ExecutorService rounds = Executors.newSingleThreadExecutor();
    private final CountDownLatch uploaded = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    /** Holds the round between uploading its shards and writing the commit entry. */
    private final SinkHook holdBeforeCommit = new SinkHook() {
        @Override
        public void passed(Step step) {
            if (step == Step.SHARDS_UPLOADED) {
                uploaded.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    };

    @BeforeEach
    void createDataset() {
        new DatasetCatalog(store).create(ShardEvents.spec());
    }

    @AfterEach
    void stopRounds() {
        release.countDown();
        rounds.shutdownNow();
    }

    @Test
    void shouldKeepPollingWhileARoundIsInFlightAndMoveOffsetsOnlyOnceItsCommitIsDurable() throws Exception {
        ShardId first = ShardEvents.shard(0, 0);
        ShardId second = ShardEvents.shard(0, 1);
        var sink = SinkHarness.builder(tmp, store).backpressureOn(System::nanoTime).hook(holdBeforeCommit).roundsOn(rounds).build();
        sink.add(P0, threeAndSeal(first));

        sink.worker.pollOnce();
        assertThat(uploaded.await(30, TimeUnit.SECONDS)).as("the round reached its commit").isTrue();
        sink.add(P0, 4, ShardEvents.assigned(second, 0, 11));
        sink.worker.pollOnce();

        assertThat(sink.gauge("shardflow.sink.shards.open")).as("the poll loop read on during the round").isEqualTo(1.0);
        assertThat(sink.committed(P0)).as("no offset before the commit entry is durable").isIn(null, 0L);
        assertThat(new CommitLog(store, ShardEvents.DATASET, ShardEvents.VERSION, SinkHarness.CLOCK).latest().shards()).isEmpty();

        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Long.valueOf(4).equals(sink.committed(P0)) && System.nanoTime() < deadline) {
            sink.worker.pollOnce();
        }
        assertThat(sink.committed(P0)).as("past the first shard, held at the open one").isEqualTo(4);
        assertThat(new CommitLog(store, ShardEvents.DATASET, ShardEvents.VERSION, SinkHarness.CLOCK).latest().shards())
                .extracting(ShardEntry::shardId).containsExactly(first.toString());
    }

    @Test
    void shouldCommitABacklogAFewShardsAtATimeInSealOrder() {
        ShardId first = ShardEvents.shard(0, 0);
        ShardId second = ShardEvents.shard(0, 1);
        ShardId third = ShardEvents.shard(0, 2);
        var sink = SinkHarness.builder(tmp, store).maxShardsPerRound(2).build();
        sink.add(P0, 0, threeAndSeal(first));
        sink.add(P0, 4, threeAndSeal(second));
        sink.add(P0, 8, threeAndSeal(third));

        sink.worker.pollOnce(); // one poll reads all three seals; the inline round takes the first two

        CommitLog log = new CommitLog(store, ShardEvents.DATASET, ShardEvents.VERSION, SinkHarness.CLOCK);
        assertThat(log.latest().shards()).extracting(ShardEntry::shardId).containsExactly(first.toString(), second.toString());
        assertThat(sink.committed(P0)).as("offsets move with the first round").isEqualTo(8);
        sink.worker.pollOnce();
        assertThat(log.latest().shards()).extracting(ShardEntry::shardId)
                .containsExactly(first.toString(), second.toString(), third.toString());
        assertThat(log.latest().snapshotId()).as("one commit entry per round").isEqualTo(2);
        assertThat(sink.committed(P0)).isEqualTo(12);
    }
}
