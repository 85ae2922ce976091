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
import io.shardflow.reader.ChecksumMismatchException;
import io.shardflow.reader.DatasetReader;
import io.shardflow.reader.ReadSample;
import io.shardflow.reader.ReaderOptions;
import io.shardflow.reader.ReaderState;
import io.shardflow.reader.ShardCache;
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
 * The Java reader ({@code io.shardflow.reader}) on data written by the real pipeline: a real
 * broker, registry and S3Proxy, ingest-app and shard-sink, samples published through the edge
 * client. Checks exactly-once coverage per epoch across 2 ranks x 2 workers with the published
 * values, the same order for the same seed and epoch and another for the next epoch, mid-epoch
 * resume, follow mode picking up a wave published while it iterates, and a corrupted cached shard
 * caught by its checksum.
 */
class JavaReaderTest {

    private static final String DATASET = "cams";
    private static final String VERSION = "v1";
    private static final String DEVICE = "cam-9";
    private static final int FIRST_WAVE = 300;
    private static final int SECOND_WAVE = 150;
    private static final long PRODUCED_AT = 1_700_000_000_000L;

    @TempDir
    Path work;

    private S3ObjectStore store;
    private final SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, DEVICE, 3, 8, 10, 77);

    @Test
    void shouldReadThePipelinesDatasetExactlyOncePerEpochResumeFollowAndCatchCorruption() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            StackEndpoints endpoints = stack.endpoints();
            store = stack.store();
            stack.createDataset(DATASET, VERSION, "java reader test", "image:float32:3x8x8", "label:int64");
            IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 10, 1 << 20,
                    Duration.ofSeconds(2), work.resolve("ingest"))));
            ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "it-sink")));
            try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(),
                    "samples", Map.of())) {
                CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
                // In ten bursts, each waiting for a new snapshot: a log long enough for shard-sink to checkpoint.
                for (int burst = 0; burst < 10; burst++) {
                    long before = log.latest().snapshotId();
                    publish(publisher, burst * FIRST_WAVE / 10, FIRST_WAVE / 10);
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                            .until(() -> log.latest().snapshotId() > before);
                }
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                        .until(() -> log.latest().sampleCount() >= FIRST_WAVE);
                Snapshot pinned = log.latest();
                assertThat(pinned.sampleCount()).isEqualTo(FIRST_WAVE);
                assertThat(pinned.snapshotId()).as("enough commits for a checkpoint").isGreaterThanOrEqualTo(10);
                assertThat(store.list(DatasetLayout.checkpointPrefix(DATASET, VERSION), null, 1))
                        .as("shard-sink wrote checkpoints through CommitLog").isNotEmpty();

                ShardCache cache = new ShardCache(store, work.resolve("cache"), 256L << 20, true);
                assertEveryEpochCoversEverySampleOnceWithThePublishedValues(pinned, cache);
                assertSameOrderForSameSeedAndAnotherForTheNextEpoch(pinned, cache);
                assertResumeYieldsExactlyTheRest(pinned, cache);
                assertFollowPicksUpAWavePublishedDuringIteration(pinned, cache, publisher, log);
                assertACorruptedCachedShardIsCaught(pinned);
            } finally {
                sink.close();
                ingest.close();
                store.close();
            }
        }
    }

    private void assertEveryEpochCoversEverySampleOnceWithThePublishedValues(Snapshot pinned, ShardCache cache) {
        for (int epoch = 0; epoch < 2; epoch++) {
            List<String> seen = new ArrayList<>();
            for (int rank = 0; rank < 2; rank++) {
                for (int worker = 0; worker < 2; worker++) {
                    List<ReadSample> samples = read(options(pinned).withShuffle(5, epoch).withSplit(rank, 2, worker, 2)
                            .withShuffleBuffer(16), cache);
                    assertThat(samples).as("epoch %d rank %d worker %d reads something", epoch, rank, worker).isNotEmpty();
                    for (ReadSample sample : samples) {
                        seen.add(sample.row().sampleId());
                        assertPublishedValues(sample.row());
                    }
                }
            }
            assertThat(seen).as("epoch %d over 2 ranks x 2 workers", epoch).doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(ids(0, FIRST_WAVE));
        }
    }

    private void assertSameOrderForSameSeedAndAnotherForTheNextEpoch(Snapshot pinned, ShardCache cache) {
        ReaderOptions epoch0 = options(pinned).withShuffle(5, 0).withSplit(0, 2, 1, 2).withShuffleBuffer(16);
        List<String> first = ids(read(epoch0, cache));
        List<String> again = ids(read(epoch0, cache));
        List<String> epoch1 = ids(read(epoch0.withEpoch(1), cache));

        assertThat(again).isEqualTo(first);
        assertThat(epoch1).isNotEqualTo(first);
        List<String> whole = ids(read(options(pinned).withShuffle(5, 0), cache));
        List<String> wholeNext = ids(read(options(pinned).withShuffle(5, 1), cache));
        assertThat(wholeNext).isNotEqualTo(whole).containsExactlyInAnyOrderElementsOf(whole);
    }

    private void assertResumeYieldsExactlyTheRest(Snapshot pinned, ShardCache cache) {
        ReaderOptions options = options(pinned).withShuffle(9, 3).withSplit(1, 2, 1, 2).withShuffleBuffer(32);
        List<String> whole = ids(read(options, cache));
        int stop = whole.size() / 2 + 3;
        List<String> before = new ArrayList<>();
        String saved;
        try (DatasetReader reader = DatasetReader.open(store, options, cache, Clock.systemUTC(), Sleeper.SYSTEM)) {
            while (before.size() < stop) {
                before.add(reader.next().row().sampleId());
            }
            saved = reader.state().toJson();
        }

        List<String> after = ids(read(options.resumeFrom(ReaderState.fromJson(saved)), cache));

        assertThat(before).isEqualTo(whole.subList(0, stop));
        assertThat(after).as("resumed from %s", saved).isEqualTo(whole.subList(stop, whole.size()));
    }

    private void assertFollowPicksUpAWavePublishedDuringIteration(Snapshot pinned, ShardCache cache, EdgePublisher publisher,
                                                                  CommitLog log) throws Exception {
        ReaderOptions options = options(pinned).withShuffle(1, 0).withShuffleBuffer(8)
                .withFollow(Duration.ofMillis(250), Duration.ofSeconds(8));
        List<String> seen = new ArrayList<>();
        CompletableFuture<Void> secondWave;
        long lastRead;
        try (DatasetReader reader = DatasetReader.open(store, options, cache, Clock.systemUTC(), Sleeper.SYSTEM)) {
            seen.add(reader.next().row().sampleId());
            secondWave = CompletableFuture.runAsync(() -> publish(publisher, FIRST_WAVE, SECOND_WAVE));
            reader.forEachRemaining(sample -> {
                seen.add(sample.row().sampleId());
                assertPublishedValues(sample.row());
            });
            lastRead = reader.lastSnapshotRead();
        }
        secondWave.get(30, TimeUnit.SECONDS);

        assertThat(lastRead).as("followed past the pinned snapshot").isGreaterThan(pinned.snapshotId());
        assertThat(log.latest().sampleCount()).isEqualTo(FIRST_WAVE + SECOND_WAVE);
        assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(ids(0, FIRST_WAVE + SECOND_WAVE));
        assertThat(seen.subList(0, FIRST_WAVE)).as("the pinned snapshot comes first").containsExactlyInAnyOrderElementsOf(ids(0, FIRST_WAVE));
    }

    private void assertACorruptedCachedShardIsCaught(Snapshot pinned) throws Exception {
        ShardCache cache = new ShardCache(store, work.resolve("corrupt-cache"), 256L << 20, true);
        ReaderOptions options = options(pinned).withShuffle(2, 0).withSplit(0, 1, 0, 2);
        List<ReadSample> first = read(options, cache);
        ShardEntry victim = pinned.shards().stream().filter(s -> s.shardId().equals(first.get(0).shardId())).findFirst().orElseThrow();
        Path file = cache.pathOf(victim);
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 3] ^= 0x40;
        Files.write(file, bytes);

        assertThatThrownBy(() -> read(options, cache))
                .isInstanceOf(ChecksumMismatchException.class)
                .hasMessageContaining(victim.shardId())
                .satisfies(e -> assertThat(((ChecksumMismatchException) e).cachedCopy()).isTrue());
        assertThat(file).as("the corrupt file is removed").doesNotExist();
        assertThat(ids(read(options, cache))).as("the next read downloads it again").isEqualTo(ids(first));
    }

    private ReaderOptions options(Snapshot pinned) {
        return ReaderOptions.of(DATASET, VERSION).withSnapshot(pinned.snapshotId());
    }

    private List<ReadSample> read(ReaderOptions options, ShardCache cache) {
        List<ReadSample> out = new ArrayList<>();
        try (DatasetReader reader = DatasetReader.open(store, options, cache, Clock.systemUTC(), Sleeper.SYSTEM)) {
            reader.forEachRemaining(out::add);
        }
        return out;
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

    private static List<String> ids(List<ReadSample> samples) {
        return samples.stream().map(s -> s.row().sampleId()).toList();
    }
}
