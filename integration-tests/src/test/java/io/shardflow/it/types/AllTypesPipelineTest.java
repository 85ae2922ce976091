package io.shardflow.it.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.ImagePixels;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SampleBuilder;
import io.shardflow.ingest.IngestApp;
import io.shardflow.it.PythonShardReader;
import io.shardflow.it.support.KafkaTopics;
import io.shardflow.it.support.TestStack;
import io.shardflow.reader.DatasetReader;
import io.shardflow.reader.ReadSample;
import io.shardflow.reader.ReaderOptions;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import io.shardflow.sink.ShardSinkApp;
import io.shardflow.stack.PipelineSettings;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackEndpoints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A dataset holding every tensor type through the real pipeline (broker, registry, S3 server,
 * ingest-app and shard-sink, samples published with the edge client), read back value for value
 * with plain h5py, with the Python reader (PyTorch DataLoader, 2 workers) and with the Java reader.
 * Two versions: v1 with a float16 tensor and gzip (shards written by the HDF5 C library, jHDF having
 * no half float), v2 without it and with lzf (written by jHDF). Bad rows go to the dead-letter topic.
 */
class AllTypesPipelineTest {

    private static final String DATASET = "alltypes";
    private static final int SAMPLES = 30;
    private static final List<String> COMMON = List.of("brain:bfloat16:3", "u16:uint16:2", "u32:uint32", "u64:uint64:2",
            "caption:string", "blob:bytes", "frame:bytes:image/jpeg", "mask:bytes:image/png", "boxes:float32:?<=8x4",
            "tokens:int32:?", "label:int64");

    @TempDir
    Path work;

    @ParameterizedTest
    @EnumSource(S3Kind.class)
    void shouldCarryEveryNewTypeFromEdgeToH5pyAndBothReaders(S3Kind s3) throws Exception {
        try (TestStack stack = TestStack.start(work, s3)) {
            StackEndpoints endpoints = stack.endpoints();
            S3ObjectStore store = stack.store();
            DatasetCatalog catalog = stack.catalog();
            List<String> v1Tensors = new ArrayList<>(COMMON);
            v1Tensors.add(0, "half:float16:4");
            catalog.create(spec("v1", v1Tensors, "gzip:4"));
            catalog.create(spec("v2", COMMON, "lzf"));

            Map<String, Map<String, Sample>> published = new LinkedHashMap<>();
            List<Sample> bad = new ArrayList<>();
            IngestApp ingest = IngestApp.start(new HashMap<>(PipelineSettings.ingest(endpoints, 8, 1 << 20,
                    Duration.ofSeconds(2), work.resolve("ingest"))));
            ShardSinkApp sink = ShardSinkApp.start(new HashMap<>(PipelineSettings.sink(endpoints, work.resolve("sink"), "it-sink")));
            try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(),
                    "samples", Map.of())) {
                Random random = new Random(11);
                for (String version : List.of("v1", "v2")) {
                    Map<String, Sample> samples = new LinkedHashMap<>();
                    for (int n = 0; n < SAMPLES; n++) {
                        Sample sample = sample(version, n, random, -1);
                        samples.put(sample.getSampleId(), sample);
                        publisher.publish(sample).get(30, TimeUnit.SECONDS);
                    }
                    published.put(version, samples);
                }
                bad.add(sample("v2", 1000, random, 9)); // 9 boxes, at most 8
                Sample corrupt = sample("v2", 1001, random, -1);
                Tensor frame = corrupt.getTensors().stream().filter(t -> t.getName().equals("frame")).findFirst().orElseThrow();
                ByteBuffer whole = frame.getData().duplicate();
                frame.setData(ByteBuffer.wrap(Arrays.copyOf(whole.array(), whole.remaining() / 2))); // a truncated JPEG
                bad.add(corrupt);
                for (Sample sample : bad) {
                    publisher.publish(sample).get(30, TimeUnit.SECONDS);
                }
            }
            Map<String, Snapshot> snapshots = new HashMap<>();
            try {
                // The dead letters first: were a good sample among them, its reason says why at once.
                List<ConsumerRecord<byte[], byte[]>> dead = new KafkaTopics(endpoints.bootstrapServers())
                        .readUntil("samples-dlq", r -> r.size() >= 2, Duration.ofSeconds(60));
                assertThat(dead.stream().map(r -> header(r, "shardflow.dlq.reason") + " " + new String(r.key(), StandardCharsets.UTF_8)
                        + ": " + header(r, "shardflow.dlq.detail")).toList())
                        .hasSize(2)
                        .anySatisfy(letter -> assertThat(letter).startsWith("DIMENSION_OVER_MAXIMUM v2-s-1000"))
                        .anySatisfy(letter -> assertThat(letter).startsWith("CORRUPT_IMAGE v2-s-1001"));
                for (String version : List.of("v1", "v2")) {
                    CommitLog log = new CommitLog(store, DATASET, version, Clock.systemUTC());
                    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                            .until(() -> log.latest().sampleCount() >= SAMPLES);
                    snapshots.put(version, log.latest());
                }
            } finally {
                sink.close();
                ingest.close();
            }

            for (String version : List.of("v1", "v2")) {
                Map<String, Sample> samples = published.get(version);
                Snapshot snapshot = snapshots.get(version);
                assertThat(snapshot.sampleCount()).isEqualTo(SAMPLES);
                checkJavaReader(store, version, samples);
                checkH5py(store, snapshot, samples);
                checkPythonReader(endpoints, version, samples);
            }
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    private static DatasetSpec spec(String version, List<String> tensors, String compression) {
        return new DatasetSpec(DATASET, version, tensors.stream().map(TensorSpec::parse).toList(), "label", "it",
                "every type", 0, false, Instant.now(), Compression.parse(compression));
    }

    /** One sample with random values of every type; {@code boxes} forces that many boxes (-1: random 0..8). */
    private static Sample sample(String version, int n, Random random, int boxes) throws Exception {
        SampleBuilder builder = SampleBuilder.forDataset(DATASET, version).id(version + "-s-" + n).device("dev-" + (n % 3))
                .producedAt(Instant.ofEpochMilli(1_700_000_000_000L + n));
        if (version.equals("v1")) {
            builder.float16("half", new float[] {random.nextFloat(), -2.5f, 65504f, 1e-6f}, 4);
        }
        int boxCount = boxes >= 0 ? boxes : random.nextInt(9);
        float[] boxValues = new float[boxCount * 4];
        for (int i = 0; i < boxValues.length; i++) {
            boxValues[i] = random.nextFloat() * 640;
        }
        int[] tokens = random.ints(random.nextInt(20), 0, 50_000).toArray();
        byte[] blob = new byte[random.nextInt(100)];
        random.nextBytes(blob);
        return builder.bfloat16("brain", new float[] {random.nextFloat(), -1f, 3e38f}, 3)
                .uint16("u16", new int[] {65535, random.nextInt(65536)}, 2)
                .uint32("u32", new long[] {4_294_967_295L - n})
                .uint64("u64", new long[] {-1L - n, random.nextLong()}, 2)
                .string("caption", "frame " + n + " ü 日本 😀".repeat(n % 3))
                .bytes("blob", blob)
                .jpeg("frame", image(random, 24 + n % 5, 32), 0.9f)
                .png("mask", image(random, 8, 6 + n % 4))
                .float32("boxes", boxValues, boxCount, 4)
                .int32("tokens", tokens, tokens.length)
                .int64("label", new long[] {n % 4})
                .build();
    }

    private static BufferedImage image(Random random, int h, int w) {
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_3BYTE_BGR);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                image.setRGB(x, y, random.nextInt(1 << 24));
            }
        }
        return image;
    }

    private static void checkJavaReader(S3ObjectStore store, String version, Map<String, Sample> samples) {
        int seen = 0;
        try (DatasetReader reader = DatasetReader.open(store, ReaderOptions.of(DATASET, version))) {
            while (reader.hasNext()) {
                ReadSample read = reader.next();
                Sample published = samples.get(read.row().sampleId());
                assertThat(published).as("Java reader: %s was published", read.row().sampleId()).isNotNull();
                for (Tensor tensor : published.getTensors()) {
                    assertThat(read.row().tensors().get(tensor.getName())).as("Java reader %s %s", version, tensor.getName())
                            .isEqualTo(bytes(tensor));
                    if (tensor.getName().equals("boxes") || tensor.getName().equals("tokens")) {
                        assertThat(read.row().shapes().get(tensor.getName())).isEqualTo(tensor.getShape());
                    }
                }
                seen++;
            }
        }
        assertThat(seen).isEqualTo(samples.size());
    }

    private void checkH5py(S3ObjectStore store, Snapshot snapshot, Map<String, Sample> samples) throws Exception {
        List<String> args = new ArrayList<>(List.of("h5py"));
        for (ShardEntry shard : snapshot.shards()) {
            Path file = work.resolve(shard.shardId().replace('/', '_') + ".h5");
            store.download(shard.objectKey(), file);
            args.add(file.toString());
        }
        JsonNode read = python(args, Map.of());
        assertThat(read.size()).isEqualTo(samples.size());
        for (Sample sample : samples.values()) {
            JsonNode row = read.get(sample.getSampleId());
            for (Tensor tensor : sample.getTensors()) {
                JsonNode value = row.get(tensor.getName());
                assertThat(Base64.getDecoder().decode(value.get("b64").asText())).as("h5py %s", tensor.getName())
                        .isEqualTo(bytes(tensor));
                if (tensor.getName().equals("boxes") || tensor.getName().equals("tokens")) {
                    assertThat(shape(value)).isEqualTo(tensor.getShape());
                }
            }
            assertThat(row.at("/caption/text").asText()).isEqualTo(text(sample, "caption"));
            if (row.has("half")) {
                assertThat(row.at("/half/numpy").asText()).isEqualTo("float16");
            }
            assertThat(row.at("/u64/numpy").asText()).isEqualTo("uint64");
            assertThat(row.at("/brain/dtype").asText()).isEqualTo("bfloat16");
        }
    }

    private void checkPythonReader(StackEndpoints endpoints, String version, Map<String, Sample> samples) throws Exception {
        JsonNode read = python(List.of("reader", "s3://" + endpoints.bucket(), DATASET, version), Map.of(
                "SHARDFLOW_S3_ENDPOINT", endpoints.s3Endpoint(), "SHARDFLOW_S3_ACCESS_KEY", endpoints.s3AccessKey(),
                "SHARDFLOW_S3_SECRET_KEY", endpoints.s3SecretKey(), "SHARDFLOW_CACHE_DIR", work.resolve("py-cache-" + version).toString()));
        assertThat(read.size()).isEqualTo(samples.size());
        for (Sample sample : samples.values()) {
            JsonNode row = read.get(sample.getSampleId());
            for (Tensor tensor : sample.getTensors()) {
                String name = tensor.getName();
                JsonNode value = row.get(name);
                if (name.equals("frame") || name.equals("mask")) {
                    BufferedImage image = ImageIO.read(new ByteArrayInputStream(bytes(tensor)));
                    assertThat(shape(value)).as("decoded %s", name).containsExactly(image.getHeight(), image.getWidth(), 3);
                    if (name.equals("mask")) { // PNG is lossless: the very pixels
                        assertThat(Base64.getDecoder().decode(value.get("pixels_b64").asText())).isEqualTo(ImagePixels.rgb(image));
                    }
                } else if (name.equals("caption")) {
                    assertThat(value.get("text").asText()).isEqualTo(text(sample, "caption"));
                } else {
                    assertThat(Base64.getDecoder().decode(value.get("b64").asText())).as("reader %s %s", version, name)
                            .isEqualTo(widened(name, bytes(tensor)));
                }
            }
            assertThat(row.at("/brain/dtype").asText()).isEqualTo("torch.bfloat16");
        }
    }

    /** What the torch dataset makes of types torch lacks: uint16 as int32, uint32 as int64 (little-endian). */
    private static byte[] widened(String name, byte[] bytes) {
        int from = name.equals("u16") ? 2 : name.equals("u32") ? 4 : 0;
        if (from == 0) {
            return bytes;
        }
        int to = from * 2;
        byte[] out = new byte[bytes.length / from * to];
        for (int i = 0; i < bytes.length / from; i++) {
            System.arraycopy(bytes, i * from, out, i * to, from);
        }
        return out;
    }

    private static List<Integer> shape(JsonNode value) {
        List<Integer> shape = new ArrayList<>();
        value.get("shape").forEach(d -> shape.add(d.asInt()));
        return shape;
    }

    private static String text(Sample sample, String name) {
        return new String(bytes(sample.getTensors().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow()),
                StandardCharsets.UTF_8);
    }

    private static byte[] bytes(Tensor tensor) {
        ByteBuffer data = tensor.getData().duplicate();
        byte[] out = new byte[data.remaining()];
        data.get(out);
        return out;
    }

    private JsonNode python(List<String> args, Map<String, String> env) throws Exception {
        Path repo = Path.of(System.getProperty("shardflow.repo", "..")).toAbsolutePath().normalize();
        Path script = repo.resolve("integration-tests/src/test/resources/python/read_all_types.py");
        Path output = Files.createTempFile(work, "read", ".json");
        Path errors = Files.createTempFile(work, "read", ".err");
        List<String> command = new ArrayList<>(List.of(PythonShardReader.python().toString(), script.toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(output.toFile()).redirectError(errors.toFile());
        builder.environment().put("PYTHONPATH", repo.resolve("python").toString());
        builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(300, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("read_all_types.py " + args.get(0) + " failed: " + Files.readString(errors));
        }
        return new ObjectMapper().readTree(output.toFile());
    }
}
