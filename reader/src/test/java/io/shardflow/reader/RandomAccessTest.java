package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.shard.StreamingShardWriter;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.reader.pages.PageChecksumException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * {@link RandomAccess}: any index gives the row a whole-shard read gives, through verified pages,
 * and only a few of them; shards without a page index are read whole.
 */
class RandomAccessTest {

    private static final Clock CLOCK = Clock.systemUTC();
    private static final int[] SIZES = {40, 7, 120, 1, 63};
    private static InMemoryObjectStore store;
    private static Path tmp;
    /** v1 jHDF (contiguous), v2 the C library (chunked), v3 the C library with gzip, v4 jHDF without page indexes. */
    private static Map<String, RandomAccessShards> versions;
    private static Map<String, Snapshot> snapshots;

    @BeforeContainer
    static void publish() throws IOException {
        tmp = Files.createTempDirectory("random-access");
        store = new InMemoryObjectStore();
        RandomAccessShards v1 = new RandomAccessShards(store, "v1", Compression.NONE, tmp, CLOCK);
        RandomAccessShards v2 = new RandomAccessShards(store, "v2", Compression.NONE, tmp, CLOCK);
        RandomAccessShards v3 = new RandomAccessShards(store, "v3", Compression.parse("gzip:4"), tmp, CLOCK);
        RandomAccessShards v4 = new RandomAccessShards(store, "v4", Compression.NONE, tmp, CLOCK);
        snapshots = Map.of("v1", v1.publish(new ShardWriter(), true, 1, SIZES),
                "v2", v2.publish(new StreamingShardWriter(), true, 2, SIZES),
                "v3", v3.publish(new StreamingShardWriter(), true, 3, SIZES),
                "v4", v4.publish(new ShardWriter(), false, 4, SIZES));
        versions = Map.of("v1", v1, "v2", v2, "v3", v3, "v4", v4);
    }

    @AfterContainer
    static void cleanUp() throws IOException {
        try (var files = Files.walk(tmp)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static RandomAccess open(String version, RangeRecordingStore recording, String cacheName) {
        ShardCache cache = new ShardCache(recording, tmp.resolve(cacheName), 1L << 30, true);
        return new RandomAccess(recording, snapshots.get(version), cache);
    }

    @Property(tries = 60)
    void shouldReadAnyIndicesAsTheWholeShardHoldsThem(@ForAll("versions") String version,
            @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 0, max = 230) Integer> picks) {
        RangeRecordingStore recording = new RangeRecordingStore(store);
        try (RandomAccess access = open(version, recording, "cache-" + version + "-" + System.nanoTime())) {
            assertThat(access.size()).isEqualTo(231);
            long[] indices = picks.stream().mapToLong(Integer::longValue).toArray();
            List<ReadSample> samples = access.getMany(indices);
            for (int k = 0; k < indices.length; k++) {
                int i = (int) indices[k];
                assertThat(samples.get(k).row()).as("sample %d of %s", i, version)
                        .isEqualTo(versions.get(version).rowsInSnapshotOrder.get(i));
                assertThat(access.get(i).row()).isEqualTo(samples.get(k).row());
            }
            if (version.equals("v4")) {
                assertThat(recording.shardRanges()).as("no page index: whole shards").isEmpty();
                assertThat(access.stats().wholeShards()).isPositive();
            } else {
                assertThat(recording.downloads()).as("page indexes: no whole shard").isEmpty();
                assertThat(access.stats().pagesVerified()).isPositive();
            }
        }
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<String> versions() {
        return net.jqwik.api.Arbitraries.of("v1", "v2", "v3", "v4");
    }

    @net.jqwik.api.Example
    void shouldLocateByBinarySearchOverTheCumulativeCounts() {
        try (RandomAccess access = open("v1", new RangeRecordingStore(store), "locate")) {
            long start = 0;
            for (ShardEntry shard : snapshots.get("v1").shards()) {
                assertThat(access.locate(start)).isEqualTo(new RandomAccess.Location(shard, 0));
                assertThat(access.locate(start + shard.sampleCount() - 1))
                        .isEqualTo(new RandomAccess.Location(shard, shard.sampleCount() - 1));
                start += shard.sampleCount();
            }
            assertThatThrownBy(() -> access.locate(231)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("out of range for snapshot 5 of ra/v1 (231 samples)");
            assertThatThrownBy(() -> access.locate(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @net.jqwik.api.Example
    void shouldNameTheShardAndPageWhenAPageIsDamaged() {
        RangeRecordingStore recording = new RangeRecordingStore(store);
        ShardEntry shard = snapshots.get("v2").shards().get(2);
        long first = 47; // v2's index of the shard's first row
        // The pages each row reads, each through its own cache: which rows share a page depends on the
        // writer's layout, so the test asks the reads instead of guessing an offset.
        List<Set<Long>> pagesOfRow = new java.util.ArrayList<>();
        for (int row = 0; row < shard.sampleCount(); row++) {
            try (RandomAccess access = open("v2", recording, "pages-" + row)) {
                recording.reset();
                access.get(first + row);
                pagesOfRow.add(pagesRead(recording, shard.objectKey()));
            }
        }
        long page = pagesOfRow.stream().flatMap(Set::stream).distinct()
                .filter(p -> pagesOfRow.stream().anyMatch(pages -> !pages.contains(p)))
                .min(java.util.Comparator.comparingLong(p -> pagesOfRow.stream().filter(pages -> pages.contains(p)).count()))
                .orElseThrow(() -> new AssertionError("every row reads the same pages: nothing tells rows apart"));
        List<Integer> expected = java.util.stream.IntStream.range(0, shard.sampleCount())
                .filter(row -> pagesOfRow.get(row).contains(page)).boxed().toList();
        recording.damage(shard.objectKey(), Math.min(shard.bytes() - 1, page * PageIndex.DEFAULT_PAGE_SIZE + PageIndex.DEFAULT_PAGE_SIZE / 2));
        try (RandomAccess access = open("v2", recording, "damaged")) {
            List<Integer> failed = new java.util.ArrayList<>();
            for (int row = 0; row < shard.sampleCount(); row++) {
                try {
                    access.get(first + row);
                } catch (PageChecksumException e) {
                    assertThat(e.shardId()).isEqualTo(shard.shardId());
                    assertThat(e.page()).isEqualTo((int) page);
                    assertThat(e).hasMessageContaining(shard.objectKey()).hasMessageContaining("page " + page);
                    failed.add(row);
                }
            }
            assertThat(failed).as("the rows whose bytes are on the damaged page, and only those").isEqualTo(expected)
                    .isNotEmpty().hasSizeLessThan(shard.sampleCount());
        }
    }

    private static Set<Long> pagesRead(RangeRecordingStore recording, String key) {
        Set<Long> pages = new java.util.TreeSet<>();
        for (RangeRecordingStore.Range range : recording.shardRanges()) {
            if (range.key().equals(key) && range.length() > 0) {
                for (long p = range.start() / PageIndex.DEFAULT_PAGE_SIZE; p <= (range.start() + range.length() - 1) / PageIndex.DEFAULT_PAGE_SIZE; p++) {
                    pages.add(p);
                }
            }
        }
        return pages;
    }

    @net.jqwik.api.Example
    void shouldFetchOnlyAFewPagesOfABigShard() throws IOException {
        // 1,000 samples of 12 KB (the ingest default seal): jHDF stores each dataset contiguous, so a
        // row costs a page or two per dataset; the C library stores ~1 MiB chunks, read whole.
        Map<String, Double> bounds = Map.of("big-jhdf", 0.03, "big-hdf5", 0.12);
        for (String version : List.of("big-jhdf", "big-hdf5")) {
            InMemoryObjectStore bigStore = new InMemoryObjectStore();
            RandomAccessShards big = new RandomAccessShards(bigStore, version, Compression.NONE, false, tmp, CLOCK);
            Snapshot snapshot = big.publish(version.endsWith("jhdf") ? new ShardWriter() : new StreamingShardWriter(), true,
                    9, 1000);
            ShardEntry shard = snapshot.shards().get(0);
            assertThat(shard.bytes()).isGreaterThan(12_000_000);
            for (int i : new int[] {0, 517, 999}) {
                RangeRecordingStore recording = new RangeRecordingStore(bigStore);
                ShardCache cache = new ShardCache(recording, Files.createTempDirectory(tmp, "c"), 1L << 30, true);
                try (RandomAccess access = new RandomAccess(recording, snapshot, cache)) {
                    assertThat(access.get(i).row()).isEqualTo(big.rowsInSnapshotOrder.get(i));
                    List<RangeRecordingStore.Range> ranges = recording.shardRanges();
                    long fetched = ranges.stream().mapToLong(RangeRecordingStore.Range::length).sum();
                    assertThat(ranges).allMatch(r -> r.start() % PageIndex.DEFAULT_PAGE_SIZE == 0);
                    assertThat((double) fetched / shard.bytes()).as("%s sample %d: %d of %d bytes in %d GETs", version, i,
                            fetched, shard.bytes(), ranges.size()).isLessThan(bounds.get(version));
                    assertThat(recording.downloads()).isEmpty();
                }
            }
        }
    }

    @net.jqwik.api.Example
    void shouldReadACachedShardFromTheCache() {
        RangeRecordingStore recording = new RangeRecordingStore(store);
        ShardCache cache = new ShardCache(recording, tmp.resolve("warm"), 1L << 30, true);
        snapshots.get("v1").shards().forEach(cache::fetch);
        recording.reset();
        try (RandomAccess access = new RandomAccess(recording, snapshots.get("v1"), cache)) {
            assertThat(access.getMany(0, 100, 230)).extracting(ReadSample::row).containsExactly(
                    versions.get("v1").rowsInSnapshotOrder.get(0), versions.get("v1").rowsInSnapshotOrder.get(100),
                    versions.get("v1").rowsInSnapshotOrder.get(230));
            assertThat(recording.shardRanges()).isEmpty();
            assertThat(recording.downloads()).isEmpty();
            assertThat(Arrays.asList(access.stats().pageGets(), access.stats().wholeShards())).containsOnly(0L);
        }
    }

    @net.jqwik.api.Example
    void shouldReadAShardWholeWhenItsPageIndexIsMissingOrDoesNotMatchTheLog() {
        for (java.util.Optional<byte[]> served : List.of(java.util.Optional.<byte[]>empty(),
                java.util.Optional.of("{\"formatVersion\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8)))) {
            RangeRecordingStore recording = new RangeRecordingStore(new io.shardflow.dataset.store.ForwardingObjectStore(store) {
                @Override
                public java.util.Optional<byte[]> get(String key) {
                    return key.endsWith(".pages.json") ? served : super.get(key);
                }
            });
            try (RandomAccess access = open("v1", recording, "no-index-" + served.isPresent())) {
                assertThat(access.getMany(3, 60, 200)).extracting(ReadSample::row).containsExactly(
                        versions.get("v1").rowsInSnapshotOrder.get(3), versions.get("v1").rowsInSnapshotOrder.get(60),
                        versions.get("v1").rowsInSnapshotOrder.get(200));
                assertThat(access.stats().wholeShards()).isEqualTo(3);
                assertThat(recording.downloads()).hasSize(3);
            }
        }
    }
}
