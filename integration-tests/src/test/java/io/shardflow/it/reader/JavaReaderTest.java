package io.shardflow.it.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.retry.Sleeper;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.reader.BatchLoader;
import io.shardflow.reader.ChecksumMismatchException;
import io.shardflow.reader.ReadSample;
import io.shardflow.reader.ReadState;
import io.shardflow.reader.ReaderOptions;
import io.shardflow.reader.ShardCache;
import io.shardflow.reader.SnapshotAgreement;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java reader ({@code io.shardflow.reader}, reading rules version 2) on data written by the
 * real pipeline: a real broker, registry and S3Proxy, ingest-app and shard-sink (shards of at most 7
 * samples), samples published through the edge client. Checks equal counts per rank and
 * exactly-once coverage with the published values, the same order for the same seed and epoch,
 * elastic resume, the same batches as the Python reader (PyTorch DataLoader with worker processes)
 * and resume states passed between the two languages both ways, follow and new-only taking in a
 * wave at the next epoch, and a corrupted cached shard caught by its checksum.
 */
class JavaReaderTest {

    private static final String DATASET = "cams";
    private static final String VERSION = "v1";
    private static final String DEVICE = "cam-9";
    private static final int FIRST_WAVE = 300;
    private static final int SECOND_WAVE = 150;
    private static final long PRODUCED_AT = 1_700_000_000_000L;
    private static final int BLOCK = 32;

    @TempDir
    Path work;

    private S3ObjectStore store;
    private ShardCache cache;
    private final SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, DEVICE, 3, 8, 10, 77);

    @Test
    void shouldReadThePipelinesDatasetByTheRulesAgreeWithPythonFollowAndCatchCorruption() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            store = stack.store();
            stack.createDataset(DATASET, VERSION, "java reader test", "image:float32:3x8x8", "label:int64");
            IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 7, 1 << 20,
                    Duration.ofSeconds(2), work.resolve("ingest"))));
            ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "it-sink")));
            try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(),
                    "samples", Map.of())) {
                CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
                // In ten bursts, each waiting for a new snapshot: a log long enough for shard-sink to checkpoint.
                for (int burst = 0; burst < 10; burst++) {
                    long before = log.latest().snapshotId();
                    publish(publisher, burst * FIRST_WAVE / 10, FIRST_WAVE / 10);
                    // The first burst also waits for Kafka Streams to start and the sink's group to form.
                    await().atMost(Duration.ofSeconds(burst == 0 ? 120 : 30)).pollInterval(Duration.ofMillis(100))
                            .until(() -> log.latest().snapshotId() > before);
                }
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                        .until(() -> log.latest().sampleCount() >= FIRST_WAVE);
                Snapshot pinned = log.latest();
                assertThat(pinned.sampleCount()).isEqualTo(FIRST_WAVE);
                // A checkpoint is written after the entry that calls for it: it may land a moment after that snapshot.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                        assertThat(store.list(DatasetLayout.checkpointPrefix(DATASET, VERSION), null, 1))
                                .as("shard-sink wrote checkpoints through CommitLog").isNotEmpty());

                cache = new ShardCache(store, work.resolve("cache"), 256L << 20, true);
                ReaderOptions options = ReaderOptions.of(DATASET, VERSION).withSnapshot(pinned.snapshotId()).withShuffleBlock(BLOCK);
                assertEveryRankGetsTheSameCountAndEverySampleOnceWithThePublishedValues(options);
                assertSameOrderForSameSeedAndEpochAndAnotherForTheNext(options);
                assertElasticResumeReadsExactlyTheRest(options);
                assertJavaAndPythonReadTheSameBatchesAndResumeEachOther(options, pinned, endpoints);
                assertFollowTakesInTheNextWaveAtTheEpochBoundary(publisher, log);
                assertACorruptedCachedShardIsCaught(options, pinned);
            } finally {
                sink.close();
                ingest.close();
                store.close();
            }
        }
    }

    private void assertEveryRankGetsTheSameCountAndEverySampleOnceWithThePublishedValues(ReaderOptions options) {
        for (int epoch = 0; epoch < 2; epoch++) {
            Run run = read(options.withShuffle(5, epoch), 7, 2, 6, null, null);
            Set<String> seen = new HashSet<>();
            int read = 0;
            for (List<List<ReadSample>> rank : run.samples()) {
                assertThat(rank).as("300 over 7 ranks: 43 samples each, in 8 batches").hasSize(8);
                assertThat(rank.stream().mapToInt(List::size).sum()).isEqualTo(43);
                for (List<ReadSample> batch : rank) {
                    for (ReadSample s : batch) {
                        assertPublishedValues(s.row());
                        seen.add(s.row().sampleId());
                        read++;
                    }
                }
            }
            assertThat(read).isEqualTo(7 * 43);
            assertThat(seen).as("epoch %d: every sample, one declared repeat", epoch).isEqualTo(ids(0, FIRST_WAVE));
        }
    }

    private void assertSameOrderForSameSeedAndEpochAndAnotherForTheNext(ReaderOptions options) {
        List<String> first = flat(read(options.withShuffle(5, 0), 2, 3, 4, null, null).ids().get(1));
        assertThat(flat(read(options.withShuffle(5, 0), 2, 0, 9, null, null).ids().get(1)))
                .as("the same samples in the same order, whatever the producers and batch size").isEqualTo(first);
        assertThat(flat(read(options.withShuffle(5, 1), 2, 3, 4, null, null).ids().get(1))).isNotEqualTo(first);
    }

    private void assertElasticResumeReadsExactlyTheRest(ReaderOptions options) {
        Run before = read(options.withShuffle(9, 3), 3, 2, 4, null, 5);
        ReadState state = ReadState.fromJson(before.states().get(0).toJson());
        assertThat(before.states()).as("the same state on every rank").containsOnly(state);
        assertThat(state.consumed()).isEqualTo(60);
        Run after = read(options.withShuffle(9, 3), 2, 3, 7, state, null);
        List<String> all = new ArrayList<>(flat(flat(before.ids())));
        all.addAll(flat(flat(after.ids())));
        assertThat(all).as("60 before, 240 after on 2 ranks").hasSize(FIRST_WAVE).containsExactlyInAnyOrderElementsOf(ids(0, FIRST_WAVE));
    }

    private void assertJavaAndPythonReadTheSameBatchesAndResumeEachOther(ReaderOptions options, Snapshot pinned,
                                                                        StackEndpoints endpoints) throws Exception {
        Run javaWhole = read(options.withShuffle(5, 2), 3, 2, 5, null, null);
        Run javaFirst = read(options.withShuffle(9, 4), 3, 2, 4, null, 5);
        ReadState javaState = javaFirst.states().get(0);
        List<PythonRankBatches.Result> python = new PythonRankBatches(endpoints, work)
                .add(DATASET, VERSION, pinned.snapshotId(), 5, 2, BLOCK, 3, 2, 5, null, null)
                .add(DATASET, VERSION, null, 9, 0, BLOCK, 2, 2, 6, javaState, null)
                .add(DATASET, VERSION, pinned.snapshotId(), 9, 6, BLOCK, 2, 1, 10, null, 4)
                .run();

        assertThat(python.get(0).ranks()).as("Python's batches, rank by rank: Java's").isEqualTo(javaWhole.ids());

        Run javaRest = read(options.withShuffle(9, 0), 2, 2, 6, javaState, null);
        assertThat(python.get(1).ranks()).as("Python resuming Java's state reads what Java resuming it reads")
                .isEqualTo(javaRest.ids());
        List<String> javaThenPython = new ArrayList<>(flat(flat(javaFirst.ids())));
        python.get(1).ranks().forEach(rank -> javaThenPython.addAll(flat(rank)));
        assertThat(javaThenPython).hasSize(FIRST_WAVE).containsExactlyInAnyOrderElementsOf(ids(0, FIRST_WAVE));

        PythonRankBatches.Result pythonFirst = python.get(2);
        ReadState pythonState = ReadState.merge(pythonFirst.states(), false);
        Run javaSame = read(options.withShuffle(9, 6), 2, 1, 10, null, 4);
        assertThat(javaSame.ids()).isEqualTo(pythonFirst.ranks());
        assertThat(javaSame.states().get(0).toJson()).as("the state Python saved, byte for byte")
                .isEqualTo(pythonFirst.stateJson().get(0));
        Run resumed = read(options.withShuffle(9, 0), 3, 2, 4, pythonState, null);
        List<String> pythonThenJava = new ArrayList<>();
        pythonFirst.ranks().forEach(rank -> pythonThenJava.addAll(flat(rank)));
        pythonThenJava.addAll(flat(flat(resumed.ids())));
        assertThat(pythonState.consumed()).isEqualTo(80);
        assertThat(pythonThenJava).as("80 read by Python, 220 by Java on 3 ranks (two declared repeats)").hasSize(FIRST_WAVE + 2)
                .containsAll(ids(0, FIRST_WAVE));
        assertThat(new HashSet<>(pythonThenJava)).hasSize(FIRST_WAVE);
    }

    private void assertFollowTakesInTheNextWaveAtTheEpochBoundary(EdgePublisher publisher, CommitLog log) throws Exception {
        ReaderOptions options = ReaderOptions.of(DATASET, VERSION).withSeed(1).withShuffleBlock(BLOCK).withBatches(8, 2);
        try (BatchLoader following = loader(options.withFollow());
             BatchLoader newOnly = loader(options.withNewOnly(Duration.ofMillis(250), Duration.ofSeconds(60)))) {
            assertThat(readEpoch(newOnly)).as("new-only's first epoch: everything").isEqualTo(ids(0, FIRST_WAVE));
            Set<String> epoch0 = new HashSet<>();
            BatchLoader.Epoch epoch = following.iterator();
            epoch.next().forEach(s -> epoch0.add(s.row().sampleId()));
            CompletableFuture<Void> secondWave = CompletableFuture.runAsync(() -> publish(publisher, FIRST_WAVE, SECOND_WAVE));
            epoch.forEachRemaining(b -> b.forEach(s -> epoch0.add(s.row().sampleId())));
            secondWave.get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> log.latest().sampleCount() >= FIRST_WAVE + SECOND_WAVE);
            assertThat(epoch0).as("an epoch never changes its snapshot").isEqualTo(ids(0, FIRST_WAVE));

            following.setEpoch(1);
            newOnly.setEpoch(1);
            assertThat(readEpoch(following)).as("the next epoch takes the wave in").isEqualTo(ids(0, FIRST_WAVE + SECOND_WAVE));
            assertThat(following.state().sources().get(0).snapshotId()).isEqualTo(log.latest().snapshotId());
            assertThat(readEpoch(newOnly)).as("new-only: the wave alone").isEqualTo(ids(FIRST_WAVE, FIRST_WAVE + SECOND_WAVE));
        }
    }

    private void assertACorruptedCachedShardIsCaught(ReaderOptions options, Snapshot pinned) throws Exception {
        ShardCache corruptible = new ShardCache(store, work.resolve("corrupt-cache"), 256L << 20, true);
        ReaderOptions twoProducers = options.withShuffle(2, 0).withBatches(16, 2);
        List<String> first = readAll(twoProducers, corruptible);
        ShardEntry victim = pinned.shards().get(0);
        Path file = corruptible.pathOf(victim);
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 3] ^= 0x40;
        Files.write(file, bytes);

        assertThatThrownBy(() -> readAll(twoProducers, corruptible))
                .isInstanceOf(ChecksumMismatchException.class)
                .hasMessageContaining(victim.shardId())
                .satisfies(e -> assertThat(((ChecksumMismatchException) e).cachedCopy()).isTrue());
        // Removed; the other producer thread may have downloaded a good copy since, never the corrupt one back.
        if (Files.exists(file)) {
            assertThat(io.shardflow.dataset.shard.ShardDigest.sha256(file)).as("the corrupt file is removed, or replaced by a good download")
                    .isEqualTo(victim.sha256());
        }
        assertThat(readAll(twoProducers, corruptible)).as("the next read downloads it again").isEqualTo(first);
    }

    /** Every rank's batches (samples and ids) of one epoch, each rank stopping after {@code stopAfter} batches if given, and its state then. */
    private record Run(List<List<List<ReadSample>>> samples, List<ReadState> states) {

        List<List<List<String>>> ids() {
            return samples.stream().map(rank -> rank.stream().map(b -> b.stream().map(s -> s.row().sampleId()).toList()).toList())
                    .toList();
        }
    }

    private Run read(ReaderOptions options, int worldSize, int workers, int batchSize, ReadState resume, Integer stopAfter) {
        List<List<List<ReadSample>>> ranks = new ArrayList<>();
        List<ReadState> states = new ArrayList<>();
        for (int rank = 0; rank < worldSize; rank++) {
            ReaderOptions mine = options.withRanks(rank, worldSize).withBatches(batchSize, workers);
            try (BatchLoader loader = loader(resume == null ? mine : mine.resumeFrom(resume))) {
                List<List<ReadSample>> batches = new ArrayList<>();
                BatchLoader.Epoch epoch = loader.iterator();
                while (epoch.hasNext() && (stopAfter == null || batches.size() < stopAfter)) {
                    batches.add(epoch.next());
                }
                ranks.add(batches);
                states.add(loader.state());
            }
        }
        return new Run(ranks, states);
    }

    private BatchLoader loader(ReaderOptions options) {
        return BatchLoader.open(store, options, cache, Clock.systemUTC(), Sleeper.SYSTEM, SnapshotAgreement.SINGLE_PROCESS);
    }

    private List<String> readAll(ReaderOptions options, ShardCache shardCache) {
        List<String> out = new ArrayList<>();
        try (BatchLoader loader = BatchLoader.open(store, options, shardCache, Clock.systemUTC(), Sleeper.SYSTEM,
                SnapshotAgreement.SINGLE_PROCESS)) {
            loader.forEach(b -> b.forEach(s -> out.add(s.row().sampleId())));
        }
        return out;
    }

    private static Set<String> readEpoch(BatchLoader loader) {
        Set<String> out = new HashSet<>();
        loader.forEach(b -> b.forEach(s -> out.add(s.row().sampleId())));
        return out;
    }

    private static <T> List<T> flat(List<List<T>> batches) {
        return batches.stream().flatMap(List::stream).toList();
    }

    private void assertPublishedValues(SampleRow row) {
        long n = Long.parseLong(row.sampleId().substring(row.sampleId().lastIndexOf('-') + 1));
        assertThat(row.sampleId()).isEqualTo(synthetic.sampleId(n));
        assertThat(row.deviceId()).isEqualTo(DEVICE);
        assertThat(row.producedAtMillis()).isEqualTo(PRODUCED_AT + n);
        ByteBuffer label = ByteBuffer.wrap(row.tensors().get("label")).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(label.getLong()).as("%s label", row.sampleId()).isEqualTo(synthetic.label(n));
        float[] expected = synthetic.image(n);
        ByteBuffer image = ByteBuffer.wrap(row.tensors().get("image")).order(ByteOrder.LITTLE_ENDIAN);
        float[] actual = new float[expected.length];
        image.asFloatBuffer().get(actual);
        assertThat(actual).as("%s image", row.sampleId()).isEqualTo(expected);
    }

    private void publish(EdgePublisher publisher, int from, int count) {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int n = from; n < from + count; n++) {
            sent.add(publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(PRODUCED_AT + n))));
        }
        publisher.flush();
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
    }

    private Set<String> ids(int from, int to) {
        Set<String> ids = new HashSet<>();
        for (int n = from; n < to; n++) {
            ids.add(synthetic.sampleId(n));
        }
        return ids;
    }
}
