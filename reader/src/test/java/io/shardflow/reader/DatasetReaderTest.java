package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.retry.Sleeper;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DatasetReaderTest {

    private static final String D = "d";
    private static final String V = "v1";

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final FakeClock clock = new FakeClock(Instant.parse("2026-05-01T00:00:00Z"));
    private ShardPublisher publisher;
    private Set<String> allIds;

    @BeforeEach
    void publishThreeSnapshots() throws Exception {
        publisher = new ShardPublisher(store, D, V, Files.createDirectories(tmp.resolve("scratch")), clock);
        publisher.publish(0, 3, 5, 4, 6);
        publisher.publish(1, 7, 2, 3);
        publisher.publish(2, 4, 4, 5, 1, 2);
        allIds = idsOf(new CommitLog(store, D, V, clock).latest().shards());
    }

    @Test
    void shouldGiveEverySampleToExactlyOneWorkerInEachEpoch() {
        for (long epoch = 0; epoch < 2; epoch++) {
            List<String> seen = new ArrayList<>();
            List<Set<String>> shardsPerWorker = new ArrayList<>();
            for (int rank = 0; rank < 2; rank++) {
                for (int worker = 0; worker < 2; worker++) {
                    List<ReadSample> samples = read(base().withShuffle(7, epoch).withSplit(rank, 2, worker, 2).withShuffleBuffer(8));
                    samples.forEach(s -> seen.add(s.row().sampleId()));
                    shardsPerWorker.add(samples.stream().map(ReadSample::shardId).collect(Collectors.toSet()));
                }
            }
            assertThat(seen).as("epoch %d", epoch).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(allIds);
            assertThat(shardsPerWorker).as("12 shards over 4 workers").allSatisfy(s -> assertThat(s).hasSize(3));
        }
    }

    @Test
    void shouldRepeatTheOrderForTheSameSeedAndEpochAndChangeItForAnotherEpoch() {
        List<String> first = ids(read(base().withShuffle(7, 3).withShuffleBuffer(10)));
        List<String> again = ids(read(base().withShuffle(7, 3).withShuffleBuffer(10)));
        List<String> nextEpoch = ids(read(base().withShuffle(7, 4).withShuffleBuffer(10)));
        List<String> otherSeed = ids(read(base().withShuffle(8, 3).withShuffleBuffer(10)));

        assertThat(again).isEqualTo(first);
        assertThat(nextEpoch).isNotEqualTo(first).containsExactlyInAnyOrderElementsOf(first);
        assertThat(otherSeed).isNotEqualTo(first).containsExactlyInAnyOrderElementsOf(first);
    }

    @Test
    void shouldOrderShardsByTheLanguageNeutralRule() {
        // Python: hashlib.sha256(b"7:0:d/v1/lane-00000/shard-000000000001").hexdigest()
        assertThat(ShardOrder.key(7, 0, "d/v1/lane-00000/shard-000000000001"))
                .isEqualTo("2698bc646d573c8377f350856be06998dcc0ffb4726840978880ab838d1c7cc8");
        List<ShardEntry> shards = new CommitLog(store, D, V, clock).latest().shards();
        List<String> expected = shards.stream().map(ShardEntry::shardId)
                .sorted((a, b) -> ShardOrder.key(7, 0, a).compareTo(ShardOrder.key(7, 0, b))).toList();

        List<ReadSample> samples = read(base().withShuffle(7, 0));

        assertThat(new ArrayList<>(new LinkedHashSet<>(samples.stream().map(ReadSample::shardId).toList()))).isEqualTo(expected);
        assertThat(samples).as("without a buffer, rows in file order").filteredOn(s -> s.shardId().equals(expected.get(0)))
                .extracting(ReadSample::rowIndex).isSorted();
        // Worker 1 of 3 gets positions 1, 4, 7, 10.
        List<ReadSample> worker = read(base().withShuffle(7, 0).withSplit(0, 1, 1, 3));
        assertThat(new ArrayList<>(new LinkedHashSet<>(worker.stream().map(ReadSample::shardId).toList())))
                .containsExactly(expected.get(1), expected.get(4), expected.get(7), expected.get(10));
    }

    @ParameterizedTest(name = "shuffle buffer {0}")
    @ValueSource(ints = {0, 1, 5, 100})
    void shouldResumeWithExactlyTheRemainingSamples(int buffer) {
        ReaderOptions options = base().withShuffle(11, 2).withSplit(1, 2, 0, 2).withShuffleBuffer(buffer);
        List<String> whole = ids(read(options));
        for (int stopAfter : new int[] {0, 1, 4, whole.size() / 2, whole.size() - 1, whole.size()}) {
            List<String> before = new ArrayList<>();
            ReaderState state;
            try (DatasetReader reader = open(options)) {
                while (before.size() < stopAfter) {
                    before.add(reader.next().row().sampleId());
                }
                state = reader.state();
            }
            ReaderState saved = ReaderState.fromJson(state.toJson());
            assertThat(saved).isEqualTo(new ReaderState(2, 11, 3, stopAfter));

            List<String> after = ids(read(options.resumeFrom(saved)));

            assertThat(before).as("stopped after %d", stopAfter).isEqualTo(whole.subList(0, stopAfter));
            assertThat(after).as("resumed after %d", stopAfter).isEqualTo(whole.subList(stopAfter, whole.size()));
        }
    }

    @Test
    void shouldReadThePinnedSnapshotOnlyWhenNotFollowing() {
        List<String> pinned = ids(read(base().withSnapshot(1)));

        assertThat(pinned).containsExactlyInAnyOrderElementsOf(idsOf(new CommitLog(store, D, V, clock).snapshot(1).shards()));
    }

    @Test
    void shouldFollowSnapshotsCommittedDuringIterationThenStopWhenIdle() {
        List<Duration> sleeps = new ArrayList<>();
        List<ShardEntry> later = new ArrayList<>();
        Sleeper sleeper = d -> {
            sleeps.add(d);
            clock.advance(d);
            if (sleeps.size() == 3) { // a commit while the reader is polling
                List<ShardEntry> shards = List.of(publisher.write(0, 4, 3), publisher.write(1, 4, 2));
                later.addAll(shards);
                publisher.commit(shards);
            }
        };
        ReaderOptions options = base().withSnapshot(3).withShuffle(5, 0).withShuffleBuffer(4)
                .withFollow(Duration.ofSeconds(1), Duration.ofSeconds(10));
        List<String> seen = new ArrayList<>();
        try (DatasetReader reader = DatasetReader.open(store, options, cache("follow"), clock, sleeper)) {
            seen.add(reader.next().row().sampleId());
            // A commit while the reader is still inside the pinned snapshot.
            List<ShardEntry> shards = List.of(publisher.write(0, 3, 2), publisher.write(1, 3, 3));
            later.addAll(shards);
            publisher.commit(shards);
            reader.forEachRemaining(s -> seen.add(s.row().sampleId()));
            assertThat(reader.lastSnapshotRead()).isEqualTo(5);
        }

        Set<String> expected = new HashSet<>(allIds);
        expected.addAll(idsOf(later));
        assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
        assertThat(seen.subList(0, allIds.size())).as("the pinned snapshot first").containsExactlyInAnyOrderElementsOf(allIds);
        assertThat(sleeps).as("polled every second until 10 s passed without news").hasSize(13)
                .allMatch(d -> d.equals(Duration.ofSeconds(1)));
    }

    @Test
    void shouldSplitFollowedCommitsOverAllWorkersAndResumeInsideThem() {
        ReaderOptions options = base().withSnapshot(1).withShuffle(3, 1).withShuffleBuffer(3)
                .withFollow(Duration.ofSeconds(1), Duration.ofSeconds(2));
        List<String> seen = new ArrayList<>();
        for (int g = 0; g < 3; g++) {
            ReaderOptions worker = options.withSplit(0, 1, g, 3);
            List<String> whole = ids(readFollowing(worker));
            seen.addAll(whole);
            int stop = whole.size() - 2;
            ReaderState state;
            try (DatasetReader reader = DatasetReader.open(store, worker, cache("w" + g), clock, clock::advance)) {
                for (int i = 0; i < stop; i++) {
                    reader.next();
                }
                state = reader.state();
            }
            assertThat(state.snapshotId()).isEqualTo(1);
            assertThat(ids(readFollowing(worker.resumeFrom(state)))).isEqualTo(whole.subList(stop, whole.size()));
        }
        assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(allIds);
    }

    @Test
    void shouldDetectADownloadThatDoesNotMatchItsChecksumAndKeepNoFile() throws Exception {
        // The object under the key is another shard's bytes: same size class, different sha256.
        ShardEntry genuine = publisher.write(9, 0, 3);
        ObjectStore swapped = new ForwardingObjectStore(store) {
            @Override
            public void download(String key, Path target) {
                delegate.download(key.equals(genuine.objectKey()) ? DatasetLayout.shardKey(new ShardId(D, V, 0, 0)) : key, target);
            }
        };
        publisher.commit(List.of(genuine));
        ShardCache cache = new ShardCache(swapped, tmp.resolve("bad-download"), 1 << 20, true);

        assertThatThrownBy(() -> {
            try (DatasetReader reader = DatasetReader.open(swapped, base().withSplit(0, 1, 0, 1), cache, clock, clock::advance)) {
                reader.forEachRemaining(s -> { });
            }
        }).isInstanceOf(ChecksumMismatchException.class)
                .hasMessageContaining("d/v1/lane-00009/shard-000000000000")
                .hasMessageContaining(genuine.sha256())
                .satisfies(e -> assertThat(((ChecksumMismatchException) e).cachedCopy()).isFalse());
        assertThat(cache.pathOf(genuine)).doesNotExist();
        try (var files = Files.list(cache.dir())) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("download"));
        }
    }

    @Test
    void shouldDetectACorruptedCachedShardRemoveItAndHealOnTheNextRead() throws Exception {
        ShardCache cache = new ShardCache(store, tmp.resolve("cache"), 1 << 20, true);
        ShardEntry victim = new CommitLog(store, D, V, clock).latest().shards().get(2);
        List<String> first = readWith(cache);
        Path cached = cache.pathOf(victim);
        byte[] bytes = Files.readAllBytes(cached);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(cached, bytes);

        assertThatThrownBy(() -> readWith(cache))
                .isInstanceOf(ChecksumMismatchException.class)
                .hasMessageContaining("cached copy of shard " + victim.shardId())
                .satisfies(e -> assertThat(((ChecksumMismatchException) e).cachedCopy()).isTrue());
        assertThat(cached).doesNotExist();
        assertThat(readWith(cache)).isEqualTo(first);
        assertThat(cached).exists();
    }

    @Test
    void shouldKeepTheCacheWithinItsSizeEvictingTheLeastRecentlyUsed() {
        List<ShardEntry> shards = new CommitLog(store, D, V, clock).latest().shards();
        long limit = shards.get(0).bytes() + shards.get(1).bytes() + shards.get(2).bytes();
        ShardCache cache = new ShardCache(store, tmp.resolve("small"), limit, false);

        cache.fetch(shards.get(0));
        cache.fetch(shards.get(1));
        cache.fetch(shards.get(2));
        cache.fetch(shards.get(0)); // now 1 is the least recently used
        cache.fetch(shards.get(3));

        assertThat(cache.totalBytes()).isLessThanOrEqualTo(limit);
        assertThat(cache.pathOf(shards.get(1))).doesNotExist();
        assertThat(cache.pathOf(shards.get(0))).exists();
        assertThat(cache.pathOf(shards.get(3))).exists();
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(new ShardCache(store, tmp.resolve("small"), limit, false).fileCount())
                .as("a new instance indexes the files already there").isEqualTo(cache.fileCount());
    }

    @Test
    void shouldRefuseToResumeBeyondTheEndOfTheStream() {
        ReaderOptions options = base().resumeFrom(new ReaderState(0, 0, 3, allIds.size() + 1));

        assertThatThrownBy(() -> open(options)).hasMessageContaining("has only " + allIds.size());
    }

    // --- fixtures ---

    private ReaderOptions base() {
        return ReaderOptions.of(D, V);
    }

    private ShardCache cache(String name) {
        return new ShardCache(store, tmp.resolve("cache-" + name), 64 << 20, true);
    }

    private DatasetReader open(ReaderOptions options) {
        return DatasetReader.open(store, options, cache("shared"), clock, clock::advance);
    }

    private List<ReadSample> read(ReaderOptions options) {
        List<ReadSample> out = new ArrayList<>();
        try (DatasetReader reader = open(options)) {
            reader.forEachRemaining(out::add);
        }
        return out;
    }

    private List<ReadSample> readFollowing(ReaderOptions options) {
        return read(options);
    }

    private List<String> readWith(ShardCache cache) {
        List<String> out = new ArrayList<>();
        try (DatasetReader reader = DatasetReader.open(store, base().withShuffle(1, 0), cache, clock, clock::advance)) {
            reader.forEachRemaining(s -> out.add(s.row().sampleId()));
        }
        return out;
    }

    private static List<String> ids(List<ReadSample> samples) {
        return samples.stream().map(s -> s.row().sampleId()).toList();
    }

    private static Set<String> idsOf(List<ShardEntry> shards) {
        Set<String> ids = new HashSet<>();
        for (ShardEntry shard : shards) {
            ShardId id = shard.id();
            for (int r = 0; r < shard.sampleCount(); r++) {
                ids.add(ShardPublisher.sampleId(id.lane(), id.sequence(), r));
            }
        }
        return ids;
    }

    /** A clock tests move by hand. */
    static final class FakeClock extends Clock {
        private Instant now;

        FakeClock(Instant start) {
            this.now = start;
        }

        synchronized void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public synchronized Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
