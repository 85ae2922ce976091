package io.shardflow.dataset.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.store.CountingObjectStore;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.store.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long opening a dataset version of 100,000 shards takes, and how many requests, against
 * {@link InMemoryObjectStore} and a real S3Proxy. Off by default (it writes ~10,000 objects):
 * <pre>
 * mvn -B -o -pl dataset test -Dtest=CheckpointOpenBenchmark -Dshardflow.bench=true \
 *     [-Dbench.commits=10000 -Dbench.shardsPerCommit=10 -Dbench.interval=10]
 * </pre>
 * Results go to {@code dataset/target/checkpoint-bench.txt} (and the test's output file).
 *
 * <p>The log is written straight to the store, as the committer would have written it, with
 * a real (incremental) checkpoint at every multiple of the interval; the report gives their total
 * size, which grows with the log, not with its square.
 */
@EnabledIfSystemProperty(named = "shardflow.bench", matches = "true")
class CheckpointOpenBenchmark {

    private static final int COMMITS = Integer.getInteger("bench.commits", 10_000);
    private static final int SHARDS_PER_COMMIT = Integer.getInteger("bench.shardsPerCommit", 10);
    private static final int INTERVAL = Integer.getInteger("bench.interval", 10);
    private static final String D = "bench";
    private static final String V = "v1";

    @TempDir
    Path tmp;

    private final List<String> report = new ArrayList<>();

    @Test
    void shouldOpenAHundredThousandShardsWithAHandfulOfRequests() throws Exception {
        line("dataset %s/%s: %d commits x %d shards = %d shards, checkpoint interval %d", D, V, COMMITS,
                SHARDS_PER_COMMIT, COMMITS * SHARDS_PER_COMMIT, INTERVAL);
        line("== InMemoryObjectStore ==");
        measure(new InMemoryObjectStore());
        if (S3ProxyServer.jar().isPresent()) {
            try (S3ProxyServer server = S3ProxyServer.start(tmp.resolve("s3proxy")); S3ObjectStore s3 = server.store("bench")) {
                line("== S3Proxy 4.1.0 (filesystem backend) at %s ==", server.endpoint());
                measure(s3);
            }
        } else {
            line("S3Proxy jar not installed: skipped the S3 half (scripts/fetch-tools.sh)");
        }
        Path out = Path.of("target", "checkpoint-bench.txt");
        Files.writeString(out, String.join("\n", report) + "\n", StandardCharsets.UTF_8);
    }

    private void measure(ObjectStore store) throws Exception {
        long started = System.nanoTime();
        List<CommitEntry> entries = entries();
        write(store, entries);
        line("wrote %d entries + checkpoints in %d ms", entries.size(), millisSince(started));

        CountingObjectStore counting = new CountingObjectStore(store);
        for (int run = 1; run <= 3; run++) {
            timedOpen("open latest (snapshot " + COMMITS + ", checkpoint right there), run " + run, counting,
                    log -> log.latest());
        }
        long worst = COMMITS - 1;
        for (int run = 1; run <= 3; run++) {
            timedOpen("open snapshot " + worst + " (checkpoint " + (worst / INTERVAL * INTERVAL) + " + "
                    + (worst % INTERVAL) + " entries: worst case), run " + run, counting, log -> log.snapshot(worst));
        }

        CommitLog open = new CommitLog(counting, D, V, Clock.systemUTC(), 0);
        open.latest();
        counting.reset();
        long t = System.nanoTime();
        int polls = 200;
        long samples = 0;
        for (int i = 0; i < polls; i++) {
            samples += open.latest().shards().size();
        }
        line("latest() again on an open log: %.2f ms and %.1f requests per call (%d shards each)",
                (System.nanoTime() - t) / 1e6 / polls, counting.total() / (double) polls, samples / polls);

        // The alternative key layouts: an ascending checkpoint prefix must be listed in full to find
        // the newest; the descending one needs max-keys 1.
        String prefix = DatasetLayout.checkpointPrefix(D, V);
        t = System.nanoTime();
        int listed = 0;
        String after = null;
        List<String> page;
        do {
            page = store.list(prefix, after, 1000);
            listed += page.size();
            after = page.isEmpty() ? null : page.get(page.size() - 1);
        } while (page.size() == 1000);
        line("LIST all %d checkpoint keys (what an ascending layout needs): %d ms", listed, millisSince(t));
        t = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            store.list(prefix, null, 1);
        }
        line("LIST max-keys 1 (descending layout): %.1f ms", (System.nanoTime() - t) / 1e6 / 10);

        long total = 0;
        int count = 0;
        String cursor = null;
        List<io.shardflow.dataset.store.StoredObject> objects;
        do {
            objects = store.listObjects(prefix, cursor, 1000);
            for (var object : objects) {
                total += object.size();
                count++;
                cursor = object.key();
            }
        } while (objects.size() == 1000);
        long entryBytes = entries.stream().mapToLong(e -> new CommitLogCodec().encode(e).length).sum();
        line("%d checkpoints hold %d bytes in all (%.2f x the %d bytes of the log entries they cover)", count, total,
                total / (double) entryBytes, entryBytes);
        assertThat(total).isPositive();

        ForwardingObjectStore noCheckpoints = new ForwardingObjectStore(counting) {
            @Override
            public List<String> list(String p, String startAfter, int maxKeys) {
                return p.endsWith("/checkpoints/") ? List.of() : delegate.list(p, startAfter, maxKeys);
            }
        };
        timedOpen("open latest WITHOUT checkpoints (one GET per entry)", counting,
                () -> new CommitLog(noCheckpoints, D, V, Clock.systemUTC(), 0), CommitLog::latest);
    }

    private void timedOpen(String what, CountingObjectStore counting, java.util.function.Function<CommitLog, Snapshot> open) {
        timedOpen(what, counting, () -> new CommitLog(counting, D, V, Clock.systemUTC(), 0), open);
    }

    private void timedOpen(String what, CountingObjectStore counting, Supplier<CommitLog> logs,
                           java.util.function.Function<CommitLog, Snapshot> open) {
        counting.reset();
        long t = System.nanoTime();
        Snapshot snapshot = open.apply(logs.get());
        line("%s: %d ms, %d requests %s -> %d shards", what, millisSince(t), counting.total(), counting.snapshot(),
                snapshot.shards().size());
    }

    private static List<CommitEntry> entries() {
        SplittableRandom random = new SplittableRandom(42);
        HexFormat hex = HexFormat.of();
        String fingerprint = "7cbfe05a".repeat(8);
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        List<CommitEntry> entries = new ArrayList<>(COMMITS);
        for (int id = 1; id <= COMMITS; id++) {
            List<ShardEntry> shards = new ArrayList<>(SHARDS_PER_COMMIT);
            for (int lane = 0; lane < SHARDS_PER_COMMIT; lane++) {
                byte[] sha = new byte[32];
                random.nextBytes(sha);
                long first = base.toEpochMilli() + id * 60_000L;
                shards.add(ShardEntry.of(new ShardId(D, V, lane, id), 250, 27_000_000 + random.nextInt(1_000_000),
                        hex.formatHex(sha), fingerprint, first, first + random.nextInt(60_000)));
            }
            entries.add(new CommitEntry(1, id, shards, "shard-sink-" + (id % 3), Map.of("samples-" + (id % 8), id * 250L),
                    base.plusSeconds(id * 60L)));
        }
        return entries;
    }

    /** Entries in parallel (8 threads); real checkpoints at the last two multiples of the interval, stand-ins before. */
    private static void write(ObjectStore store, List<CommitEntry> entries) throws Exception {
        CommitLogCodec codec = new CommitLogCodec();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (CommitEntry entry : entries) {
                writes.add(pool.submit(() -> store.putIfAbsent(DatasetLayout.commitKey(D, V, entry.snapshotId()),
                        codec.encode(entry))));
            }
            CommitLogState state = new CommitLogState();
            CheckpointStore checkpoints = new CheckpointStore(store, D, V);
            for (CommitEntry entry : entries) {
                state.apply(entry);
                if (entry.snapshotId() % INTERVAL == 0) {
                    checkpoints.write(state, INTERVAL);
                }
            }
            for (Future<?> write : writes) {
                write.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private void line(String format, Object... args) {
        String text = String.format(format, args);
        report.add(text);
        System.out.println(text);
    }

}
