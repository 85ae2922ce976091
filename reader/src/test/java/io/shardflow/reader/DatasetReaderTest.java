package io.shardflow.reader;

import static io.shardflow.reader.TestShards.expectedIds;
import static io.shardflow.reader.TestShards.idsOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link DatasetReader} on real shard files in an in-memory store: each rank's samples are exactly
 * what the rules' arithmetic says, ranks get equal counts, resume on another world size reads
 * exactly the rest, and downloads are verified.
 */
class DatasetReaderTest {

    static final String D = "d";
    static final String V = "v1";

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final FakeClock clock = new FakeClock(Instant.parse("2026-05-01T00:00:00Z"));
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

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 5, 46, 50})
    void shouldGiveEveryRankTheSameCountInTheRulesOrderAndEverySampleOnce(int worldSize) {
        Set<String> seen = new HashSet<>();
        long padding = 0;
        for (int rank = 0; rank < worldSize; rank++) {
            ReaderOptions options = base().withShuffle(7, 2).withShuffleBlock(8).withRanks(rank, worldSize);
            List<String> ids = new ArrayList<>();
            try (DatasetReader reader = open(options)) {
                reader.forEachRemaining(s -> ids.add(s.row().sampleId()));
                padding += reader.padding();
                assertThat(reader.samples()).isEqualTo(ids.size());
            }
            assertThat(ids).as("rank %d of %d", rank, worldSize).hasSize((46 + worldSize - 1) / worldSize)
                    .isEqualTo(expectedIds(shards, 7, 2, 8, rank, worldSize, 0, false));
            seen.addAll(ids);
        }
        assertThat(seen).isEqualTo(idsOf(shards));
        assertThat(padding).isEqualTo((long) ((46 + worldSize - 1) / worldSize) * worldSize - 46);
    }

    @Test
    void shouldRepeatTheOrderForTheSameSeedAndEpochAndChangeItForAnotherEpoch() {
        List<String> first = ids(base().withShuffle(7, 3).withShuffleBlock(10));
        List<String> again = ids(base().withShuffle(7, 3).withShuffleBlock(10));
        List<String> nextEpoch = ids(base().withShuffle(7, 4).withShuffleBlock(10));
        List<String> otherSeed = ids(base().withShuffle(8, 3).withShuffleBlock(10));

        assertThat(again).isEqualTo(first);
        assertThat(nextEpoch).isNotEqualTo(first).containsExactlyInAnyOrderElementsOf(first);
        assertThat(otherSeed).isNotEqualTo(first).containsExactlyInAnyOrderElementsOf(first);
    }

    @Test
    void shouldOrderShardsByTheLanguageNeutralRuleAndRowsInFileOrderWithoutBlocks() {
        // Python: hashlib.sha256(b"7:0:d/v1/lane-00000/shard-000000000001").hexdigest()
        assertThat(ShardOrder.key(7, 0, "d/v1/lane-00000/shard-000000000001"))
                .isEqualTo("2698bc646d573c8377f350856be06998dcc0ffb4726840978880ab838d1c7cc8");
        List<String> expected = shards.stream().map(ShardEntry::shardId)
                .sorted((a, b) -> ShardOrder.key(7, 0, a).compareTo(ShardOrder.key(7, 0, b))).toList();
        List<ReadSample> samples = new ArrayList<>();
        try (DatasetReader reader = open(base().withShuffle(7, 0).withShuffleBlock(0))) {
            reader.forEachRemaining(samples::add);
        }

        assertThat(new ArrayList<>(new LinkedHashSet<>(samples.stream().map(ReadSample::shardId).toList()))).isEqualTo(expected);
        assertThat(samples).filteredOn(s -> s.shardId().equals(expected.get(0))).extracting(ReadSample::rowIndex).isSorted();
        List<String> logOrder = ids(base().withShuffleShards(false).withShuffleBlock(1));
        assertThat(logOrder).as("no shuffle at all: the log's order").isEqualTo(expectedIds(shards, 0, 0, 0, 0, 1, 0, false, false));
    }

    @Test
    void shouldResumeOnAnotherWorldSizeWithExactlyTheRestOfTheEpoch() {
        ReaderOptions options = base().withShuffle(11, 2).withShuffleBlock(8);
        List<String> consumed = new ArrayList<>();
        ReadState state = null;
        for (int rank = 0; rank < 3; rank++) { // 3 ranks in step take 5 samples each
            try (DatasetReader reader = open(options.withRanks(rank, 3))) {
                for (int i = 0; i < 5; i++) {
                    consumed.add(reader.next().row().sampleId());
                }
                ReadState mine = reader.state();
                assertThat(state == null || mine.equals(state)).as("every rank's state is the same").isTrue();
                state = mine;
            }
        }
        ReadState saved = ReadState.fromJson(state.toJson());
        assertThat(saved.consumed()).isEqualTo(15);
        assertThat(saved.sources()).containsExactly(new SourcePin(D, V, 3, null, true, 8, 46));
        List<String> rest = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            List<String> mine = ids(options.withRanks(rank, 2).resumeFrom(saved));
            assertThat(mine).as("rank %d of 2 after the resume", rank).hasSize(16)
                    .isEqualTo(expectedIds(shards, 11, 2, 8, rank, 2, 15, false));
            rest.addAll(mine);
        }
        assertThat(consumed).as("3 ranks x 5 samples: the epoch's first 15 positions")
                .containsExactlyInAnyOrderElementsOf(expectedIds(shards, 11, 2, 8, 0, 1, 0, false).subList(0, 15));
        assertThat(rest).as("31 left over 2 ranks: one declared repeat").doesNotContainAnyElementsOf(consumed)
                .hasSize(32).containsAll(expectedIds(shards, 11, 2, 8, 0, 1, 15, false));
        Set<String> all = new HashSet<>(consumed);
        all.addAll(rest);
        assertThat(all).isEqualTo(idsOf(shards));
    }

    @Test
    void shouldReadThePinnedSnapshotAndRefuseAStateForAnotherOneUnlessAllowed() {
        List<String> pinned = ids(base().withSnapshot(1));
        assertThat(pinned).containsExactlyInAnyOrderElementsOf(idsOf(new CommitLog(store, D, V, clock).snapshot(1).shards()));
        ReadState atLatest;
        try (DatasetReader reader = open(base())) {
            reader.next();
            atLatest = reader.state();
        }

        assertThatThrownBy(() -> open(base().withSnapshot(1).resumeFrom(atLatest))).hasMessageContaining("snapshot 3")
                .hasMessageContaining("opened at snapshot 1");
        assertThat(ids(base().withSnapshot(1).resumeFrom(atLatest, true))).as("allowed: snapshot 1's order from 1 on")
                .hasSize(pinned.size() - 1);
        assertThatThrownBy(() -> open(base().withSeed(5).resumeFrom(atLatest))).hasMessageContaining("seed=0");
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
            try (DatasetReader reader = DatasetReader.open(swapped, base(), cache, clock, clock::advance)) {
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
        ShardEntry victim = shards.get(2);
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

    // --- fixtures ---

    private ReaderOptions base() {
        return ReaderOptions.of(D, V);
    }

    private DatasetReader open(ReaderOptions options) {
        return DatasetReader.open(store, options, new ShardCache(store, tmp.resolve("cache-shared"), 64 << 20, true), clock,
                clock::advance);
    }

    private List<String> ids(ReaderOptions options) {
        List<String> out = new ArrayList<>();
        try (DatasetReader reader = open(options)) {
            reader.forEachRemaining(s -> out.add(s.row().sampleId()));
        }
        return out;
    }

    private List<String> readWith(ShardCache cache) {
        List<String> out = new ArrayList<>();
        try (DatasetReader reader = DatasetReader.open(store, base().withShuffle(1, 0), cache, clock, clock::advance)) {
            reader.forEachRemaining(s -> out.add(s.row().sampleId()));
        }
        return out;
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
