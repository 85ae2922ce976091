package io.shardflow.reader;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.PageIndexUpload;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.shard.EveryTypeRows;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Shards of every tensor kind (an image and a label, and EveryTypeRows' kinds; a float16 tensor
 * among them makes even the jHDF writer use the C library, FORMAT.md), written by a given
 * writer and committed with page indexes as shard-sink commits them (or without, as older ones),
 * with the rows each holds for comparison.
 */
final class RandomAccessShards {

    static final Instant CREATED = Instant.parse("2026-01-02T03:04:05Z");

    final DatasetSpec spec;
    final List<SampleRow> rowsInSnapshotOrder = new ArrayList<>();
    private final ObjectStore store;
    private final Path scratch;
    private final CommitLog log;

    RandomAccessShards(ObjectStore store, String version, Compression compression, Path scratch, Clock clock) {
        this(store, version, compression, true, scratch, clock);
    }

    /** {@code everyKind} false: the image and the label only (as the quickstart's samples). */
    RandomAccessShards(ObjectStore store, String version, Compression compression, boolean everyKind, Path scratch,
                       Clock clock) {
        List<TensorSpec> tensors = new ArrayList<>(List.of(TensorSpec.parse("image:float32:3x32x32"),
                TensorSpec.parse("label:int64")));
        if (everyKind) {
            tensors.addAll(List.of(EveryTypeRows.TENSORS));
        }
        this.spec = new DatasetSpec("ra", version, tensors, "label", "tests", "random access", 0, false, CREATED)
                .withCompression(compression);
        this.store = store;
        this.scratch = scratch;
        this.log = new CommitLog(store, spec.name(), version, clock);
        new DatasetCatalog(store).create(spec);
    }

    /** Writes and commits one shard per size (one snapshot per shard); the pinned result. */
    Snapshot publish(ShardFileWriter writer, boolean pageIndexes, long seed, int... sizes) {
        Random random = new Random(seed);
        for (int size : sizes) {
            long sequence = log.latest().snapshotId();
            ShardId id = new ShardId(spec.name(), spec.version(), (int) (sequence % 3), sequence);
            List<SampleRow> rows = EveryTypeRows.rows(spec, size, random);
            Path file = scratch.resolve("shard-" + sequence + ".h5");
            writer.write(file, spec, id, rows);
            ShardFileDigest digest = ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE);
            ShardEntry entry = ShardEntry.of(id, size, digest.bytes(), digest.sha256(), spec.fingerprint(),
                    rows.get(0).producedAtMillis(), rows.get(size - 1).producedAtMillis());
            store.putIfAbsent(DatasetLayout.shardKey(id), file);
            if (pageIndexes) {
                entry = entry.withPageIndex(PageIndexUpload.publish(store, entry.objectKey(), digest.pageIndex()).orElseThrow());
            }
            log.commit(List.of(entry), "tests", Map.of());
            rowsInSnapshotOrder.addAll(rows);
            delete(file);
        }
        return log.latest();
    }

    private static void delete(Path file) {
        try {
            Files.delete(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
