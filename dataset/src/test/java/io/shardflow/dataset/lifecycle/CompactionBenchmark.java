package io.shardflow.dataset.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.shard.ShardWriterKind;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.store.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * How fast {@code dataset compact} merges small shards (download, check, read, write, upload,
 * commit), on {@link InMemoryObjectStore} and on a real S3Proxy. Off by default:
 * <pre>
 * mvn -B -o -pl dataset test -Dtest=CompactionBenchmark -Dshardflow.bench=true \
 *     [-Dbench.shards=100 -Dbench.rows=50 -Dbench.target=1000 -Dbench.writer=jhdf]
 * </pre>
 * Rows: image float32 3x32x32 (12 KiB of random bytes) + label int64.
 */
@EnabledIfSystemProperty(named = "shardflow.bench", matches = "true")
class CompactionBenchmark {

    private static final int SHARDS = Integer.getInteger("bench.shards", 100);
    private static final int ROWS = Integer.getInteger("bench.rows", 50);
    private static final int TARGET = Integer.getInteger("bench.target", 1000);
    private static final String WRITER = System.getProperty("bench.writer", "jhdf");

    @TempDir
    Path tmp;

    @Test
    void shouldMeasureCompactionThroughput() throws Exception {
        measure("InMemoryObjectStore", new InMemoryObjectStore());
        if (S3ProxyServer.jar().isPresent()) {
            try (S3ProxyServer server = S3ProxyServer.start(tmp.resolve("s3proxy")); S3ObjectStore s3 = server.store("bench")) {
                measure("S3Proxy", s3);
            }
        }
    }

    private void measure(String where, ObjectStore store) throws Exception {
        DatasetSpec spec = Specs.imageSpec("bench", "v1");
        new DatasetCatalog(store).create(spec);
        CommitLog log = new CommitLog(store, "bench", "v1", Clock.systemUTC());
        Random random = new Random(7);
        long bytes = 0;
        Path scratch = Files.createDirectories(tmp.resolve(where));
        for (int s = 0; s < SHARDS; s++) {
            ShardId id = new ShardId("bench", "v1", s % 4, s);
            List<SampleRow> rows = new ArrayList<>();
            for (int r = 0; r < ROWS; r++) {
                byte[] image = new byte[3 * 32 * 32 * 4];
                random.nextBytes(image);
                rows.add(new SampleRow("s-" + s + "-" + r, "dev-" + (s % 4), 1_700_000_000_000L + s * 1000L + r,
                        Map.of("image", image, "label", new byte[8]), Map.of()));
            }
            Path file = scratch.resolve("shard.h5");
            new ShardWriter().write(file, spec, id, rows);
            bytes += Files.size(file);
            store.putIfAbsent(DatasetLayout.shardKey(id), file);
            log.commit(List.of(ShardEntry.of(id, ROWS, Files.size(file), ShardDigest.sha256(file), spec.fingerprint(),
                    1_700_000_000_000L + s * 1000L, 1_700_000_000_000L + s * 1000L + ROWS - 1)), "bench", Map.of());
        }
        ShardRewriter rewriter = new ShardRewriter(store, spec, ShardWriterKind.fromSetting(WRITER).create(), scratch);
        long started = System.nanoTime();
        Compactor.Result result = new Compactor(log, rewriter, "bench").compact(spec.fingerprint(), TARGET, line -> { });
        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(result.samples()).isEqualTo((long) SHARDS * ROWS);
        System.out.printf("%s, writer %s: %d shards x %d rows (%.1f MB) -> %d shards in %.2f s: %.0f samples/s, %.1f MB/s%n",
                where, WRITER, SHARDS, ROWS, bytes / 1e6, result.added().size(), seconds, result.samples() / seconds,
                bytes / 1e6 / seconds);
    }
}
