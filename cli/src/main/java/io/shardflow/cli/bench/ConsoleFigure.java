package io.shardflow.cli.bench;

import io.shardflow.console.ConsoleServer;
import io.shardflow.console.ConsoleSettings;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.cli.Progress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * P6, the web console's first page of samples on a large dataset: a snapshot of {@code consoleSamples}
 * samples (8x8x3 uint8 pictures and an int64 label, shards of {@value #SHARD_ROWS}) written straight
 * into the bucket with the dataset module's shard writer and committed ten shards per entry (running
 * the pipeline for a million samples would take hours on this machine; the console reads only the log
 * and the shards, so how they were made does not change what it does). Measured: the first request of
 * the first page on a cold cache, then the p95 of {@value #REQUESTS} requests of it, and of a page deep
 * in the snapshot (by cursor), against one raw GET of the shard the first page shows.
 */
public final class ConsoleFigure implements Figure {

    static final int SHARD_ROWS = 1000;
    private static final int REQUESTS = 50;
    private static final String DATASET = "bench-console";

    @Override
    public List<String> ids() {
        return List.of("p6");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        long samples = context.options().consoleSamples();
        int shards = (int) Math.max(1, (samples + SHARD_ROWS - 1) / SHARD_ROWS);
        context.say("P6 web console on %d samples (%d shards written directly), %s", samples, shards, context.s3());
        DatasetSpec spec = new DatasetSpec(DATASET, "v1", List.of(TensorSpec.parse("image:uint8:8x8x3"), TensorSpec.parse("label:int64")),
                "label", "bench", "P6: the console's first page", 0, false, Instant.parse("2026-01-01T00:00:00Z"));
        new DatasetCatalog(context.store()).create(spec);
        CommitLog log = new CommitLog(context.store(), DATASET, "v1", context.clock());
        Path scratch = Files.createDirectories(context.workDir().resolve("p6"));
        List<ShardEntry> batch = new ArrayList<>();
        try (Progress progress = context.progress("P6 dataset", "shards", shards)) {
            for (int s = 0; s < shards; s++) {
                int rows = (int) Math.min(SHARD_ROWS, samples - (long) s * SHARD_ROWS);
                batch.add(writeShard(context, spec, scratch, s, rows));
                if (batch.size() == 10 || s == shards - 1) {
                    log.commit(batch, "bench", Map.of());
                    batch.clear();
                }
                progress.advance(1);
            }
        }
        Snapshot snapshot = log.latest();
        ConsoleSettings settings = new ConsoleSettings("127.0.0.1", 0, Optional.empty(), Files.createDirectories(scratch.resolve("cache")),
                1L << 30, Optional.empty(), null, Map.of());
        try (ConsoleServer console = ConsoleServer.start(settings, context.store(), null, context.clock())) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + console.port() + "/datasets/" + DATASET + "/v1/snapshots/" + snapshot.snapshotId() + "/samples";
            double cold = millis(http, base);
            double p95 = p95(http, base);
            String deep = base + "?cursor=" + (shards * 9 / 10) + ".0";
            millis(http, deep);
            double deepP95 = p95(http, deep);
            long rawStart = System.nanoTime();
            context.store().get(snapshot.shards().get(0).objectKey()).orElseThrow();
            double raw = (System.nanoTime() - rawStart) / 1e6;
            context.recorder().add(Measurement.withGoal("P6", "console first page p95, " + snapshot.sampleCount() + " samples",
                    context.s3(), p95, "ms", raw, "one raw GET of the first shard", "p95 < 500 ms", p95 < 500,
                    String.format(java.util.Locale.ROOT, "cold first request %.0f ms; page at shard %d by cursor p95 %.0f ms; "
                            + "%d shards of %d samples written with the dataset module's writer", cold, shards * 9 / 10,
                            deepP95, shards, SHARD_ROWS)));
        }
    }

    /** p95 of {@value #REQUESTS} requests, in milliseconds. */
    private static double p95(HttpClient http, String url) throws Exception {
        List<Double> series = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            series.add(millis(http, url));
        }
        return Percentiles.of(series, 95);
    }

    private static double millis(HttpClient http, String url) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 || !response.body().contains("sample-grid")) {
            throw new IllegalStateException("GET " + url + " answered " + response.statusCode());
        }
        return (System.nanoTime() - start) / 1e6;
    }

    private static ShardEntry writeShard(BenchContext context, DatasetSpec spec, Path scratch, int sequence, int rows) throws Exception {
        ShardId id = new ShardId(DATASET, "v1", 0, sequence);
        long base = 1_767_225_600_000L + (long) sequence * SHARD_ROWS;
        List<SampleRow> samples = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) {
            byte[] pixels = new byte[8 * 8 * 3];
            for (int p = 0; p < pixels.length; p++) {
                pixels[p] = (byte) (p * 5 + r + sequence);
            }
            byte[] label = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong((sequence + r) % 10).array();
            samples.add(new SampleRow("s-" + sequence + "-" + r, "dev-" + (r % 7), base + r, Map.of("image", pixels, "label", label), Map.of()));
        }
        Path file = scratch.resolve("shard.h5");
        Files.deleteIfExists(file);
        new ShardWriter().write(file, spec, id, samples);
        ShardEntry entry = ShardEntry.of(id, rows, Files.size(file), ShardDigest.sha256(file), spec.fingerprint(), base, base + rows - 1);
        context.store().putIfAbsent(DatasetLayout.shardKey(id), file);
        return entry;
    }
}
