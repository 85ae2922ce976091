package io.shardflow.reader;

import static io.shardflow.reader.DatasetReaderTest.D;
import static io.shardflow.reader.DatasetReaderTest.V;
import static io.shardflow.reader.TestShards.expectedIds;
import static io.shardflow.reader.TestShards.idOf;
import static io.shardflow.reader.TestShards.idsOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.EntryChange;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BatchLoader} on real shard files: producer threads hand out exactly the rules' batches in
 * order, states resume across topologies, follow and new-only act at epoch boundaries, mixes keep
 * their counts, and a producer's error reaches the trainer.
 */
class BatchLoaderTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final DatasetReaderTest.FakeClock clock = new DatasetReaderTest.FakeClock(Instant.parse("2026-05-01T00:00:00Z"));
    private ShardPublisher publisher;
    private List<ShardEntry> shards;

    @BeforeEach
    void publishThreeSnapshots() throws Exception {
        publisher = new ShardPublisher(store, D, V, Files.createDirectories(tmp.resolve("scratch")), clock);
        publisher.publish(0, 3, 5, 4, 6);
        publisher.publish(1, 7, 2, 3);
        publisher.publish(2, 4, 4, 5, 1, 2);
        shards = new CommitLog(store, D, V, clock).latest().shards();
    }

    @ParameterizedTest(name = "{0} producer threads")
    @ValueSource(ints = {0, 1, 2, 5})
    void shouldHandOutTheRulesBatchesInOrderWhateverTheNumberOfProducers(int workers) {
        for (int rank = 0; rank < 3; rank++) {
            ReaderOptions options = base().withShuffle(4, 1).withShuffleBlock(8).withRanks(rank, 3).withBatches(4, workers);
            List<List<String>> batches = new ArrayList<>();
            try (BatchLoader loader = open(options)) {
                BatchLoader.Epoch epoch = loader.iterator();
                assertThat(epoch.batchCount()).isEqualTo(4);
                epoch.forEachRemaining(b -> batches.add(ids(b)));
            }
            assertThat(batches).as("rank %d", rank).isEqualTo(chunks(expectedIds(shards, 4, 1, 8, rank, 3, 0, false), 4));
        }
    }

    @Test
    void shouldResumeAChainOfJobsOnOtherTopologiesWithNoSampleRepeatedAndNoneLost() {
        ReaderOptions options = base().withShuffle(9, 5).withShuffleBlock(6);
        // (ranks, producers, batch size, batches each rank delivers before the job stops; -1: to the end)
        int[][] runs = {{3, 2, 2, 3}, {2, 3, 3, 2}, {5, 1, 1, 1}, {4, 0, 5, -1}};
        List<String> delivered = new ArrayList<>();
        long padding = 0;
        ReadState state = null;
        for (int[] run : runs) {
            ReadState next = null;
            for (int rank = 0; rank < run[0]; rank++) {
                ReaderOptions mine = options.withRanks(rank, run[0]).withBatches(run[2], run[1]);
                try (BatchLoader loader = open(state == null ? mine : mine.resumeFrom(ReadState.fromJson(state.toJson())))) {
                    BatchLoader.Epoch epoch = loader.iterator();
                    for (int k = 0; epoch.hasNext() && (run[3] < 0 || k < run[3]); k++) {
                        delivered.addAll(ids(epoch.next()));
                    }
                    if (run[3] < 0) {
                        padding += epoch.padding();
                    }
                    ReadState after = loader.state();
                    assertThat(next == null || after.equals(next)).as("every rank's state is the same").isTrue();
                    next = after;
                }
            }
            state = next;
        }
        assertThat(state.done()).isTrue();
        assertThat(new HashSet<>(delivered)).isEqualTo(idsOf(shards));
        assertThat(delivered).as("46 samples once, and the last job's declared padding").hasSize(46 + (int) padding);
    }

    @Test
    void shouldTakeInANewSnapshotAtTheNextEpochWhenFollowingAndNeverWithinOne() {
        ReaderOptions options = base().withShuffle(2, 0).withShuffleBlock(5).withBatches(3, 2);
        try (BatchLoader following = open(options.withFollow()); BatchLoader pinned = open(options)) {
            List<String> epoch0 = new ArrayList<>();
            BatchLoader.Epoch epoch = following.iterator();
            epoch0.addAll(ids(epoch.next()));
            List<ShardEntry> added = List.of(publisher.write(0, 3, 2), publisher.write(1, 3, 3));
            publisher.commit(added); // snapshot 4, committed mid-epoch
            epoch.forEachRemaining(b -> epoch0.addAll(ids(b)));
            assertThat(new HashSet<>(epoch0)).as("epoch 0 stays on snapshot 3").isEqualTo(idsOf(shards));
            assertThat(following.state().sources().get(0).snapshotId()).isEqualTo(3);

            following.setEpoch(1);
            pinned.setEpoch(1);
            List<String> epoch1 = new ArrayList<>();
            following.forEach(b -> epoch1.addAll(ids(b)));
            List<String> notFollowing = new ArrayList<>();
            pinned.forEach(b -> notFollowing.addAll(ids(b)));

            Set<String> both = idsOf(shards);
            both.addAll(idsOf(added));
            assertThat(epoch1).hasSize(51).containsExactlyInAnyOrderElementsOf(both);
            assertThat(following.state().sources().get(0).snapshotId()).isEqualTo(4);
            assertThat(new HashSet<>(notFollowing)).isEqualTo(idsOf(shards));
        }
    }

    @Test
    void shouldReadOnlyWhatAppendsAddedWithNewOnlyLeavingRewritesOutAndWaitingForNews() {
        List<Duration> sleeps = new ArrayList<>();
        ReaderOptions options = base().withShuffle(6, 0).withShuffleBlock(4).withBatches(2, 2)
                .withNewOnly(Duration.ofSeconds(1), Duration.ofSeconds(5));
        try (BatchLoader loader = BatchLoader.open(store, options, cache(), clock, d -> {
            sleeps.add(d);
            clock.advance(d);
        }, SnapshotAgreement.SINGLE_PROCESS)) {
            assertThat(read(loader)).as("the first epoch reads everything").containsExactlyInAnyOrderElementsOf(idsOf(shards));

            List<ShardEntry> appended = List.of(publisher.write(0, 3, 2), publisher.write(1, 3, 3));
            publisher.commit(appended); // snapshot 4
            ShardEntry compacted = publisher.write(7, 0, shards.get(0).sampleCount() + shards.get(1).sampleCount());
            new CommitLog(store, D, V, clock).append("test", view -> new EntryChange(EntryKind.REPLACE, List.of(compacted),
                    List.of(shards.get(0).shardId(), shards.get(1).shardId()), Map.of())); // snapshot 5
            loader.setEpoch(1);
            assertThat(read(loader)).as("epoch 1: only the appended shards").containsExactlyInAnyOrderElementsOf(idsOf(appended));
            assertThat(loader.state().sources().get(0)).isEqualTo(new SourcePin(D, V, 5, 3L, true, 4, 5));
            assertThat(sleeps).isEmpty();

            loader.setEpoch(2);
            assertThat(read(loader)).as("nothing new within the timeout: an empty epoch").isEmpty();
            assertThat(sleeps).hasSize(5).allMatch(d -> d.equals(Duration.ofSeconds(1)));
        }
    }

    @Test
    void shouldMixTwoSnapshotsWithExactCountsAndResumeTheMixOnAnotherWorldSize() {
        Mix mix = Mix.weighted(List.of(ReadSource.latest(D, V), ReadSource.at(D, V, 1)), 0.75, 0.25).withEpochSamples(40);
        ReaderOptions options = ReaderOptions.of(mix).withShuffle(4, 1).withShuffleBlock(5);
        List<ShardEntry> snapshot1 = new CommitLog(store, D, V, clock).snapshot(1).shards();
        MixedOrder order = new MixedOrder(List.of(new MixedOrder.MixSource(shards, true, 5), new MixedOrder.MixSource(snapshot1, true, 5)),
                List.of(30L, 10L), 4, 1);
        List<String> whole = new ArrayList<>();
        for (long p = 0; p < order.size(); p++) {
            whole.add(idOf(order.entry(p).shard(), order.entry(p).row()));
        }
        assertThat(readAll(options.withBatches(7, 2))).as("the mixed epoch, read whole").isEqualTo(whole);

        List<String> first = new ArrayList<>();
        ReadState state = null;
        for (int rank = 0; rank < 3; rank++) {
            try (BatchLoader loader = open(options.withRanks(rank, 3).withBatches(2, 1))) {
                BatchLoader.Epoch epoch = loader.iterator();
                first.addAll(ids(epoch.next()));
                first.addAll(ids(epoch.next()));
                state = loader.state();
            }
        }
        assertThat(state.consumed()).isEqualTo(12);
        assertThat(state.sources()).extracting(SourcePin::count).containsExactly(30L, 10L);
        List<String> rest = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            rest.addAll(readAll(options.withRanks(rank, 2).withBatches(4, 3).resumeFrom(state)));
        }
        List<String> all = new ArrayList<>(first);
        all.addAll(rest);
        assertThat(all).hasSize(40).containsExactlyInAnyOrderElementsOf(whole);
    }

    @Test
    void shouldReadRankZerosSnapshotsWhereTheAgreementSaysSo() {
        publisher.publish(3, 2, 2); // snapshot 4: rank 1 opened after it, rank 0 before
        ReaderOptions options = base().withShuffle(1, 0).withRanks(1, 2).withBatches(5, 0);
        try (BatchLoader loader = BatchLoader.open(store, options, cache(), clock, clock::advance, ids -> List.of(3L))) {
            List<String> mine = read(loader);
            assertThat(mine).isEqualTo(expectedIds(shards, 1, 0, ReaderOptions.DEFAULT_SHUFFLE_BLOCK, 1, 2, 0, false));
            assertThat(loader.state().sources().get(0).snapshotId()).isEqualTo(3);
        }
    }

    @Test
    void shouldRaiseAProducersErrorAtItsBatchAndStopTheOtherProducers() {
        ShardEntry victim = shards.get(4);
        ObjectStore corrupting = new ForwardingObjectStore(store) {
            @Override
            public void download(String key, Path target) {
                delegate.download(key.equals(victim.objectKey()) ? shards.get(5).objectKey() : key, target);
            }
        };
        ShardCache cache = new ShardCache(corrupting, tmp.resolve("corrupt"), 64 << 20, true);
        ReaderOptions options = base().withShuffle(3, 0).withShuffleBlock(4).withBatches(2, 3);

        assertThatThrownBy(() -> {
            try (BatchLoader loader = BatchLoader.open(corrupting, options, cache, clock, clock::advance, SnapshotAgreement.SINGLE_PROCESS)) {
                read(loader);
            }
        }).isInstanceOf(ChecksumMismatchException.class).hasMessageContaining(victim.shardId());
        assertThat(Thread.getAllStackTraces().keySet()).as("no producer left running")
                .noneMatch(t -> t.getName().startsWith("shardflow-batches") && t.isAlive());
    }

    // --- fixtures ---

    private ReaderOptions base() {
        return ReaderOptions.of(D, V);
    }

    private ShardCache cache() {
        return new ShardCache(store, tmp.resolve("cache"), 64 << 20, true);
    }

    private BatchLoader open(ReaderOptions options) {
        return BatchLoader.open(store, options, cache(), clock, clock::advance, SnapshotAgreement.SINGLE_PROCESS);
    }

    private List<String> readAll(ReaderOptions options) {
        try (BatchLoader loader = open(options)) {
            return read(loader);
        }
    }

    /** One epoch, all its batches' sample ids in order. */
    private static List<String> read(BatchLoader loader) {
        List<String> out = new ArrayList<>();
        loader.forEach(b -> out.addAll(ids(b)));
        return out;
    }

    static List<String> ids(List<ReadSample> batch) {
        return batch.stream().map(s -> s.row().sampleId()).toList();
    }

    static List<List<String>> chunks(List<String> ids, int size) {
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += size) {
            out.add(ids.subList(i, Math.min(ids.size(), i + size)));
        }
        return out;
    }
}
