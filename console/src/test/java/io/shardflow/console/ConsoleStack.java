package io.shardflow.console;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.lifecycle.SampleDeleter;
import io.shardflow.dataset.lifecycle.SampleFilter;
import io.shardflow.dataset.lifecycle.ShardRewriter;
import io.shardflow.dataset.lifecycle.Tags;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SampleBuilder;
import io.shardflow.stack.LocalPipeline;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One real stack for the console's tests (a Kafka broker, Apicurio Registry and S3Proxy as processes,
 * ingest-app and shard-sink as their own JVMs), started once per test JVM and filled through the real
 * pipeline: dataset {@code cams/v1} with JPEG frames, uint8 pixel tensors, a float32 tensor with no
 * picture and a string label, from devices with hostile ids and labels; dead letters from samples for
 * a dataset that does not exist; then a tag and a deletion with its reason.
 */
final class ConsoleStack {

    static final String DATASET = "cams";
    static final String VERSION = "v1";
    static final String HOSTILE_LABEL = "<script>window.pwned=1</script>";
    static final String HOSTILE_DEVICE = "\"><img src=x onerror=\"window.pwned=2\">";
    static final String DELETE_REASON = "faulty sensor <b>cam-bad</b>";
    static final int SAMPLES = 40;
    static final int DEAD_LETTERS = 5;

    private static ConsoleStack instance;

    final Path work;
    final LocalStack stack;
    final StackEndpoints endpoints;
    final S3ObjectStore store;
    final long snapshotBeforeDelete;
    final long snapshotAfterDelete;

    private ConsoleStack(Path work) throws Exception {
        this.work = work;
        this.stack = LocalStack.start(StackConfig.defaults(work.resolve("stack")));
        this.endpoints = StackEndpoints.of(stack);
        this.store = S3ObjectStore.connect(endpoints.s3Settings());
        DatasetSpec spec = new DatasetSpec(DATASET, VERSION, List.of(TensorSpec.parse("frame:bytes:image/jpeg"),
                TensorSpec.parse("pixels:uint8:16x16x3"), TensorSpec.parse("depth:float32:4x5"), TensorSpec.parse("label:string")),
                "label", "console-tests", "front cameras <i>and</i> friends", 0, false, Instant.now());
        new DatasetCatalog(store).create(spec);
        CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
        try (LocalPipeline pipeline = LocalPipeline.start(endpoints, work.resolve("pipeline"), 8, Duration.ofSeconds(1), "console");
             EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", Map.of())) {
            for (int i = 0; i < SAMPLES; i++) {
                publisher.publish(sample(i)).get();
            }
            for (int i = 0; i < DEAD_LETTERS; i++) {
                publisher.publish(SampleBuilder.forDataset("ghost", "v9").id("ghost-" + i).device(HOSTILE_DEVICE)
                        .producedAt(Instant.parse("2026-03-01T12:00:00Z")).string("label", HOSTILE_LABEL).build()).get();
            }
            pipeline.awaitCommitted(log, SAMPLES, Duration.ofSeconds(180), Duration.ofMillis(300), s -> { });
        }
        Tags.create(log, "first-light", log.latest().snapshotId(), "console-tests");
        this.snapshotBeforeDelete = log.latest().snapshotId();
        Path scratch = Files.createDirectories(work.resolve("rewrite"));
        new SampleDeleter(log, new ShardRewriter(store, spec, new ShardWriter(), scratch), "console-tests")
                .delete(SampleFilter.deviceIds(Set.of("cam-bad")), DELETE_REASON, line -> { });
        this.snapshotAfterDelete = log.latest().snapshotId();
    }

    static synchronized ConsoleStack get() throws Exception {
        if (instance == null) {
            Path work = Files.createTempDirectory("console-stack");
            instance = new ConsoleStack(work);
            Runtime.getRuntime().addShutdownHook(new Thread(instance.stack::close));
        }
        return instance;
    }

    /** Sample i: device cam-{i%3} (cam-bad for every 10th), a hostile label for every 7th. */
    static io.shardflow.schemas.Sample sample(int i) {
        String device = i % 10 == 9 ? "cam-bad" : i % 5 == 4 ? HOSTILE_DEVICE : "cam-" + (i % 3);
        String label = i % 7 == 6 ? HOSTILE_LABEL : (i % 2 == 0 ? "cat" : "dog");
        byte[] pixels = new byte[16 * 16 * 3];
        for (int p = 0; p < pixels.length; p++) {
            pixels[p] = (byte) ((p * 7 + i * 13) & 0xFF);
        }
        float[] depth = new float[20];
        for (int d = 0; d < depth.length; d++) {
            depth[d] = i + d / 10f;
        }
        return SampleBuilder.forDataset(DATASET, VERSION).id("s-" + i).device(device)
                .producedAt(Instant.parse("2026-03-01T00:00:00Z").plusSeconds(60L * i))
                .attribute("note", i % 4 == 0 ? "<svg onload=alert(3)>" : "plain")
                .jpeg("frame", frame(i), 0.9f).uint8("pixels", pixels, 16, 16, 3).float32("depth", depth, 4, 5)
                .string("label", label).build();
    }

    private static BufferedImage frame(int i) {
        BufferedImage image = new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setColor(new Color(Color.HSBtoRGB(i / (float) SAMPLES, 0.6f, 0.9f)));
        g.fillRect(0, 0, 64, 48);
        g.setColor(Color.WHITE);
        g.fillOval(8 + i % 30, 10, 20, 20);
        g.dispose();
        return image;
    }

    /** A console on a free loopback port, caching under {@code cacheDir}. */
    ConsoleServer console(Path cacheDir, java.util.Optional<ConsoleSettings.Credentials> credentials) {
        ConsoleSettings settings = new ConsoleSettings("127.0.0.1", 0, credentials, cacheDir, 256L << 20,
                java.util.Optional.of(ConsoleSettings.KafkaSettings.defaults(endpoints.bootstrapServers(), Map.of())),
                endpoints.registryUrl(), Map.of());
        return ConsoleServer.start(settings, store, Map.of("apicurio.registry.url", endpoints.registryUrl()), Clock.systemUTC());
    }
}
