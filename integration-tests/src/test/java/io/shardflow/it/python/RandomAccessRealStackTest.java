package io.shardflow.it.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.support.TestStack;
import io.shardflow.reader.RandomAccess;
import io.shardflow.reader.ShardCache;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.sink.config.SinkConfig;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.StackEndpoints;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random access on shards the real pipeline wrote (broker, registry, S3Proxy, ingest-app and
 * shard-sink with each shard writer), 12 KB samples sealed 1,000 to a shard (about 12 MB, the ingest
 * default; the rest of each of the 3 lanes sealed by age): every shard has a page
 * index; the Java {@link RandomAccess} reads random samples with the published values through a
 * few verified pages; the Python {@code shardflow.tools.bench_random} measures cold {@code ds[i]}
 * latency and bytes against a whole-shard GET in the same run (its figures are printed).
 *
 * <p>What a sample costs is bounded in bytes whatever its shard; its share of the shard is judged on
 * full (count-sealed) shards only. A loaded machine seals some shards early by age, and a sample of
 * a 5-sample remainder shard costs about its whole shard, which says nothing of random access.
 */
class RandomAccessRealStackTest {

    private static final int SAMPLES = 6000;
    private static final int SEAL = 1000;
    private static final String DATASET = "frames";
    private static final String DEVICE = "cam-3";
    private static final long PRODUCED_AT = 1_700_000_000_000L;
    /** Most bytes one cold sample may fetch. jHDF: a page or two per dataset; the C library: the ~1 MiB chunk holding the row, and metadata. */
    private static final Map<String, Long> MAX_BYTES_PER_SAMPLE = Map.of("jhdf", 512L << 10, "hdf5", 3L << 19);

    @TempDir
    Path work;

    @Test
    void shouldReadSamplesByIndexFromThePipelinesShardsThroughVerifiedPages() throws Exception {
        try (TestStack stack = TestStack.start(work)) {
            for (String writer : List.of("hdf5", "jhdf")) {
                String version = "v-" + writer;
                stack.createDataset(DATASET, version, "random access test", "image:float32:3x32x32", "label:int64");
                SyntheticSamples synthetic = new SyntheticSamples(DATASET, version, DEVICE, 3, 32, 10, 17);
                Snapshot snapshot = runPipeline(stack.endpoints(), stack.store(), synthetic, version, writer);
                assertThat(snapshot.sampleCount()).isEqualTo(SAMPLES);
                assertThat(snapshot.shards()).allMatch(ShardEntry::hasPageIndex);

                checkJavaRandomAccess(stack.store(), snapshot, synthetic, writer);
                JsonNode bench = runBench(stack.endpoints(), version);
                System.out.println("---- bench_random, shard.writer=" + writer + " ----\n" + bench.toPrettyString());
                assertThat(bench.get("page_index_shards").asInt()).isEqualTo(snapshot.shards().size());
                assertThat(bench.get("cold").get("kb_fetched_median").asDouble() * 1e3).isLessThanOrEqualTo(MAX_BYTES_PER_SAMPLE.get(writer));
            }
        }
    }

    private void checkJavaRandomAccess(S3ObjectStore s3, Snapshot snapshot, SyntheticSamples synthetic, String writer) {
        AtomicLong rangeBytes = new AtomicLong();
        ForwardingObjectStore counting = new ForwardingObjectStore(s3) {
            @Override
            public InputStream getRange(String key, long offset, long length) {
                if (key.endsWith(".h5")) {
                    rangeBytes.addAndGet(length);
                }
                return super.getRange(key, offset, length);
            }
        };
        SplittableRandom random = new SplittableRandom(3);
        List<Double> coldMillis = new ArrayList<>();
        List<Double> sharesOfFullShards = new ArrayList<>();
        for (int k = 0; k < 40; k++) {
            long index = random.nextLong(SAMPLES);
            ShardCache cache = new ShardCache(counting, work.resolve("cache-" + writer + "-" + k), 1L << 30, true);
            long before = rangeBytes.get();
            long start = System.nanoTime();
            ShardEntry shard;
            try (RandomAccess access = new RandomAccess(counting, snapshot, cache)) {
                shard = access.locate(index).shard();
                SampleRow row = access.get(index).row();
                coldMillis.add((System.nanoTime() - start) / 1e6);
                long n = Long.parseLong(row.sampleId().substring(row.sampleId().lastIndexOf('-') + 1));
                assertThat(row.sampleId()).isEqualTo(synthetic.sampleId(n));
                assertThat(floats(row.tensors().get("image"))).isEqualTo(synthetic.image(n));
                assertThat(ByteBuffer.wrap(row.tensors().get("label")).order(ByteOrder.LITTLE_ENDIAN).getLong())
                        .isEqualTo(synthetic.label(n));
                assertThat(access.stats().wholeShards()).isZero();
            }
            long fetched = rangeBytes.get() - before;
            assertThat(fetched).as("bytes of a %d-byte shard fetched", shard.bytes()).isLessThanOrEqualTo(MAX_BYTES_PER_SAMPLE.get(writer));
            if (shard.sampleCount() == SEAL) {
                assertThat(fetched).as("bytes of a full %d-byte shard fetched", shard.bytes()).isLessThan(shard.bytes());
                sharesOfFullShards.add((double) fetched / shard.bytes());
            }
        }
        List<Long> sizes = snapshot.shards().stream().map(ShardEntry::bytes).toList();
        assertThat(sharesOfFullShards).as("samples that fell in full shards; shards of %s bytes", sizes).hasSizeGreaterThanOrEqualTo(10);
        sharesOfFullShards.sort(Double::compare);
        assertThat(sharesOfFullShards.get(sharesOfFullShards.size() / 2)).as("median share of its full shard fetched").isLessThan(0.15);
        coldMillis.sort(Double::compare);
        System.out.printf("Java RandomAccess, shard.writer=%s, shards of %s bytes: %d cold samples, p50 %.1f ms, p90 %.1f ms,"
                        + " %.0f KB fetched per sample, median %.2f%% of its shard (%d samples in full shards)%n", writer, sizes,
                coldMillis.size(), coldMillis.get(coldMillis.size() / 2), coldMillis.get(coldMillis.size() * 9 / 10),
                rangeBytes.get() / 1e3 / coldMillis.size(), 100 * sharesOfFullShards.get(sharesOfFullShards.size() / 2),
                sharesOfFullShards.size());
    }

    private static float[] floats(byte[] bytes) {
        float[] values = new float[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
        return values;
    }

    /** Publishes the samples with this shard writer, waits until all are committed, and stops both services. */
    private Snapshot runPipeline(StackEndpoints endpoints, S3ObjectStore store, SyntheticSamples synthetic, String version,
                                 String writer) throws Exception {
        IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, SEAL, 64L << 20,
                Duration.ofSeconds(30), work.resolve("ingest-" + writer))));
        Map<String, Object> sinkSettings = new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink-" + writer),
                "it-sink"));
        sinkSettings.put(SinkConfig.SHARD_WRITER, writer);
        ShardSinkApp sink = ShardSinkApp.start(sinkSettings);
        try {
            CommitLog log = new CommitLog(store, DATASET, version, Clock.systemUTC());
            try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(),
                    "samples", Map.of())) {
                // Not one at a time: lanes fill to the seal count instead of being sealed by age.
                List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
                for (int n = 0; n < SAMPLES; n++) {
                    sent.add(publisher.publish(synthetic.sample(n, Instant.ofEpochMilli(PRODUCED_AT + n))));
                }
                for (java.util.concurrent.Future<?> ack : sent) {
                    ack.get(60, TimeUnit.SECONDS);
                }
            }
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                    .until(() -> log.latest().sampleCount() >= SAMPLES);
            return log.latest();
        } finally {
            sink.close();
            ingest.close();
        }
    }

    private JsonNode runBench(StackEndpoints endpoints, String version) throws Exception {
        Path repo = Path.of(System.getProperty("shardflow.repo", "..")).toAbsolutePath().normalize();
        Path output = work.resolve("bench-" + version + ".json");
        ProcessBuilder builder = new ProcessBuilder(List.of(python().toString(), "-m", "shardflow.tools.bench_random",
                "--endpoint", endpoints.s3Endpoint(), "--bucket", endpoints.bucket(), "--dataset", DATASET, "--version",
                version, "--samples", "200", "--json"))
                .directory(repo.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        Map<String, String> env = builder.environment();
        env.put("PYTHONPATH", repo.resolve("python").toString());
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        env.put("SHARDFLOW_S3_ACCESS_KEY", endpoints.s3AccessKey());
        env.put("SHARDFLOW_S3_SECRET_KEY", endpoints.s3SecretKey());
        Process process = builder.start();
        assertThat(process.waitFor(10, TimeUnit.MINUTES)).as("bench_random finished").isTrue();
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(text).isZero();
        return new ObjectMapper().readTree(text.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow());
    }

    private static Path python() {
        String configured = System.getenv("SHARDFLOW_PYTHON");
        Path python = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "shardflow", "venv", "bin", "python");
        if (!Files.isExecutable(python)) {
            throw new IllegalStateException("no Python at " + python + "; run scripts/setup-python.sh or set SHARDFLOW_PYTHON");
        }
        return python;
    }
}
