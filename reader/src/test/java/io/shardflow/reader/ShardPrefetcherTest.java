package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardPrefetcherTest {

    private static final String D = "d";
    private static final String V = "v1";
    /** Shards of a few KiB: ranges of 512 bytes from 1 KiB on split each into several GETs. */
    private static final FetchOptions SMALL_RANGES = new FetchOptions(3, 512, 1024);

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final DatasetReaderTest.FakeClock clock = new DatasetReaderTest.FakeClock(Instant.parse("2026-05-01T00:00:00Z"));
    private List<ShardEntry> shards;

    @BeforeEach
    void publish() throws Exception {
        ShardPublisher publisher = new ShardPublisher(store, D, V, Files.createDirectories(tmp.resolve("scratch")), clock);
        publisher.publish(0, 3, 5, 4, 6, 2);
        publisher.publish(1, 7, 2, 3, 8);
        shards = new CommitLog(store, D, V, clock).latest().shards();
    }

    @Test
    void shouldReadTheSameSamplesInTheSameOrderWhateverThePrefetchDepthAndRanges() {
        ReaderOptions base = ReaderOptions.of(D, V).withShuffle(5, 2).withShuffleBlock(7).withRanks(1, 2);
        List<String> plain = ids(base.withFetch(new FetchOptions(0, 1 << 20, Long.MAX_VALUE)), "plain");
        List<String> ahead = ids(base.withFetch(SMALL_RANGES), "ahead");
        List<String> deep = ids(base.withFetch(new FetchOptions(16, 700, 1)), "deep");

        assertThat(plain).isNotEmpty();
        assertThat(ahead).isEqualTo(plain);
        assertThat(deep).isEqualTo(plain);
    }

    @Test
    void shouldResumeToTheSameRestOfTheEpochWithPrefetching() {
        ReaderOptions options = ReaderOptions.of(D, V).withShuffle(3, 1).withShuffleBlock(5).withFetch(SMALL_RANGES);
        List<String> all = ids(options, "all");
        long samples = shards.stream().mapToLong(ShardEntry::sampleCount).sum();
        ReadState after11 = new ReadState(3, 1, false, samples, 11, List.of(new SourcePin(D, V, 2, null, true, 5, samples)));
        List<String> rest = ids(options.resumeFrom(after11), "rest");

        assertThat(rest).isEqualTo(all.subList(11, all.size()));
    }

    @Test
    void shouldReassembleARangedShardByteForByteFromItsParallelGets() throws Exception {
        CountingRanges counting = new CountingRanges(store);
        ShardCache cache = new ShardCache(counting, tmp.resolve("cache"), 64 << 20, true);
        ShardEntry big = shards.stream().max((a, b) -> Long.compare(a.bytes(), b.bytes())).orElseThrow();
        try (ShardPrefetcher prefetcher = new ShardPrefetcher(cache, counting, SMALL_RANGES)) {
            prefetcher.schedule(List.of(big));
            Path file = prefetcher.get(big);

            assertThat(Files.readAllBytes(file)).isEqualTo(store.get(big.objectKey()).orElseThrow());
        }
        assertThat(counting.ranges.get()).as("ranges of 512 bytes of a %d-byte shard", big.bytes())
                .isEqualTo((int) ((big.bytes() + 511) / 512)).isGreaterThan(1);
        assertThat(cache.downloads()).isEqualTo(1);
        try (var left = Files.list(tmp.resolve("cache"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly(big.sha256() + ".h5");
        }
    }

    @Test
    void shouldKeepAtMostPrefetchGetsInFlightAndPrefetchPlusOneShardsPending() throws Exception {
        GatedStore gated = new GatedStore(store);
        ShardCache cache = new ShardCache(gated, tmp.resolve("cache"), 64 << 20, true);
        FetchOptions two = new FetchOptions(2, 512, 1024);
        try (ShardPrefetcher prefetcher = new ShardPrefetcher(cache, gated, two)) {
            prefetcher.schedule(shards);

            assertThat(prefetcher.pendingShards()).containsExactly(shards.get(0).shardId(), shards.get(1).shardId(),
                    shards.get(2).shardId());
            assertThat(gated.twoStarted.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(200); // a third GET, if the bound were broken, would start now
            assertThat(gated.inFlight.get()).isEqualTo(2);

            gated.open.countDown();
            for (ShardEntry shard : shards) {
                prefetcher.schedule(shards.subList(shards.indexOf(shard), shards.size()));
                assertThat(Files.readAllBytes(prefetcher.get(shard))).isEqualTo(store.get(shard.objectKey()).orElseThrow());
                prefetcher.release(shard);
            }
        }
        assertThat(gated.maxInFlight.get()).isEqualTo(2);
    }

    @Test
    void shouldRefuseARangedShardWhoseBytesDoNotMatchTheLogAndCacheNothing() throws Exception {
        ObjectStore corrupting = new ForwardingObjectStore(store) {
            @Override
            public InputStream getRange(String key, long offset, long length) {
                byte[] bytes = readAll(super.getRange(key, offset, length));
                if (offset == 512) {
                    bytes[7] ^= 0x5A;
                }
                return new ByteArrayInputStream(bytes);
            }
        };
        ShardCache cache = new ShardCache(corrupting, tmp.resolve("cache"), 64 << 20, true);
        ShardEntry big = shards.stream().max((a, b) -> Long.compare(a.bytes(), b.bytes())).orElseThrow();
        try (ShardPrefetcher prefetcher = new ShardPrefetcher(cache, corrupting, SMALL_RANGES)) {
            prefetcher.schedule(List.of(big));

            assertThatThrownBy(() -> prefetcher.get(big)).isInstanceOf(ChecksumMismatchException.class)
                    .hasMessageContaining(big.shardId());
        }
        assertThat(cache.fileCount()).isZero();
        assertThat(cache.pathOf(big)).doesNotExist();
    }

    private List<String> ids(ReaderOptions options, String cacheName) {
        List<String> out = new ArrayList<>();
        ShardCache cache = new ShardCache(store, tmp.resolve("cache-" + cacheName), 64 << 20, true);
        try (DatasetReader reader = DatasetReader.open(store, options, cache, clock, clock::advance)) {
            reader.forEachRemaining(s -> out.add(s.row().sampleId()));
        }
        return out;
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Counts ranged GETs. */
    private static final class CountingRanges extends ForwardingObjectStore {
        final AtomicInteger ranges = new AtomicInteger();

        CountingRanges(ObjectStore delegate) {
            super(delegate);
        }

        @Override
        public InputStream getRange(String key, long offset, long length) {
            ranges.incrementAndGet();
            return super.getRange(key, offset, length);
        }
    }

    /** Holds every GET until {@code open}, counting how many are in flight at once. */
    private static final class GatedStore extends ForwardingObjectStore {
        final CountDownLatch open = new CountDownLatch(1);
        final CountDownLatch twoStarted = new CountDownLatch(2);
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();

        GatedStore(ObjectStore delegate) {
            super(delegate);
        }

        @Override
        public void download(String key, Path target) {
            gate(() -> super.download(key, target));
        }

        @Override
        public InputStream getRange(String key, long offset, long length) {
            InputStream[] out = new InputStream[1];
            gate(() -> out[0] = super.getRange(key, offset, length));
            return out[0];
        }

        private void gate(Runnable get) {
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            twoStarted.countDown();
            try {
                open.await();
                get.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }
}
