package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.StoredObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What naming a page index costs the commit log: bytes of a one-shard log entry and checkpoint bytes
 * per commit, with and without {@code pageIndexSha256}, for 10,240 commits of one shard each, with
 * SHA-256 values as random as real ones (the SHA-256 of a counter). Off by default:
 * <pre>
 * mvn -B -o -pl dataset test -Dtest=PageIndexEntrySizeBenchmark -Dshardflow.bench=true
 * </pre>
 * Results go to {@code dataset/target/page-index-entry-size.txt}.
 */
@EnabledIfSystemProperty(named = "shardflow.bench", matches = "true")
class PageIndexEntrySizeBenchmark {

    private static final int COMMITS = 10_240;

    @Test
    void shouldMeasureEntryAndCheckpointBytes() throws Exception {
        List<String> report = new ArrayList<>();
        for (boolean indexed : new boolean[] {false, true}) {
            Clock clock = Clock.fixed(Instant.parse("2026-02-03T04:05:06Z"), ZoneOffset.UTC);
            InMemoryObjectStore store = new InMemoryObjectStore();
            CommitLog log = new CommitLog(store, "cams", "v1", clock, 10);
            for (long n = 1; n <= COMMITS; n++) {
                log.commit(List.of(shard(n, indexed)), "shard-sink-0", Map.of("samples-3", n * 1000));
            }
            long entryBytes = bytesUnder(store, DatasetLayout.commitPrefix("cams", "v1"));
            long checkpointBytes = bytesUnder(store, DatasetLayout.checkpointPrefix("cams", "v1"));
            report.add(String.format("%-18s entry %.0f bytes, checkpoints %.1f bytes per commit (%d commits, interval 10)",
                    indexed ? "with page index" : "without", entryBytes / (double) COMMITS,
                    checkpointBytes / (double) COMMITS, COMMITS));
        }
        report.forEach(System.out::println);
        Files.writeString(Path.of("target", "page-index-entry-size.txt"), String.join("\n", report) + "\n",
                StandardCharsets.UTF_8);
    }

    private static ShardEntry shard(long n, boolean indexed) {
        ShardEntry entry = ShardEntry.of(new ShardId("cams", "v1", 3, n), 1000, 12_500_000L + n, random("shard", n),
                random("spec", 0), 1_767_225_600_000L + n * 60_000, 1_767_225_600_000L + n * 60_000 + 59_999);
        return indexed ? entry.withPageIndex(random("pages", n)) : entry;
    }

    private static String random(String what, long n) {
        return ShardDigest.sha256((what + n).getBytes(StandardCharsets.UTF_8));
    }

    private static long bytesUnder(InMemoryObjectStore store, String prefix) {
        long bytes = 0;
        String cursor = null;
        List<StoredObject> page;
        do {
            page = store.listObjects(prefix, cursor, 1000);
            for (StoredObject object : page) {
                bytes += object.size();
                cursor = object.key();
            }
        } while (page.size() == 1000);
        return bytes;
    }
}
