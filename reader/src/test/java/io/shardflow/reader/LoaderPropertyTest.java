package io.shardflow.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The loader's real machinery (producer threads, shard downloads, decoding, ordered hand-out)
 * gives exactly the batches the rules' arithmetic gives, for random ranks, producers, batch sizes,
 * blocks, seeds, drop-last and resume points, on real shard files of uneven sizes.
 */
class LoaderPropertyTest {

    private static final InMemoryObjectStore STORE = new InMemoryObjectStore();
    private static Path dir;
    private static ShardCache cache;
    private static List<ShardEntry> shards;

    @BeforeContainer
    static void publish() throws IOException {
        dir = Files.createTempDirectory("loader-property-");
        ShardPublisher publisher = new ShardPublisher(STORE, "p", "v1", Files.createDirectories(dir.resolve("scratch")),
                Clock.systemUTC());
        publisher.publish(0, 9, 1, 13, 4, 7);
        publisher.publish(1, 2, 11, 5);
        shards = new CommitLog(STORE, "p", "v1", Clock.systemUTC()).latest().shards();
        cache = new ShardCache(STORE, dir.resolve("cache"), 64 << 20, false);
    }

    @AfterContainer
    static void removeFiles() throws IOException {
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Property(tries = 15)
    void shouldGiveEveryRankExactlyTheRulesBatches(@ForAll @IntRange(min = 1, max = 6) int worldSize,
            @ForAll @IntRange(max = 4) int workers, @ForAll @IntRange(min = 1, max = 9) int batchSize,
            @ForAll @IntRange(max = 20) int block, @ForAll @LongRange(max = Long.MAX_VALUE) long seed,
            @ForAll @IntRange(max = 9) int epoch, @ForAll boolean dropLast, @ForAll @IntRange(max = 52) int consumed) {
        long samples = shards.stream().mapToLong(ShardEntry::sampleCount).sum();
        ReadState at = new ReadState(seed, epoch, dropLast, samples, consumed, List.of(new SourcePin("p", "v1", 2, null, true, block,
                samples)));
        ReaderOptions options = ReaderOptions.of("p", "v1").withSeed(seed).withShuffleBlock(block).resumeFrom(at);
        for (int rank = 0; rank < worldSize; rank++) {
            List<List<String>> batches = new ArrayList<>();
            try (BatchLoader loader = BatchLoader.open(STORE, options.withRanks(rank, worldSize).withBatches(batchSize, workers),
                    cache, Clock.systemUTC(), d -> { }, SnapshotAgreement.SINGLE_PROCESS)) {
                loader.forEach(b -> batches.add(BatchLoaderTest.ids(b)));
            }
            List<String> expected = TestShards.expectedIds(shards, seed, epoch, block, rank, worldSize, consumed, dropLast);
            assertThat(batches).as("rank %d of %d", rank, worldSize).isEqualTo(BatchLoaderTest.chunks(expected, batchSize));
        }
    }
}
