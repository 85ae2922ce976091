package io.shardflow.dataset.log;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.CommitResult;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.PageIndexUpload;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.shard.ShardWriter;
import io.shardflow.dataset.shard.TensorBytes;
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

/**
 * Writes real shard files (jHDF) into a store and commits them, as shard-sink would: for reader and
 * CLI tests here and, through the test-jar, in other modules. Samples are named
 * {@code s-<lane>-<sequence>-<row>}; tensor {@code x} (int32) holds the row, {@code label} (int64)
 * is {@code (lane + sequence + row) % 3}, produced at {@code 1_700_000_000_000 + sequence * 1000 + row}.
 * Each shard gets a page index unless {@link #pageIndexes} turns them off.
 */
public final class ShardPublisher {

    public static final long BASE_TIME = 1_700_000_000_000L;

    private final ObjectStore store;
    private final DatasetSpec spec;
    private final Path scratch;
    private final CommitLog log;
    private boolean pageIndexes = true;

    public ShardPublisher(ObjectStore store, String dataset, String version, Path scratch, Clock clock) {
        this.store = store;
        this.spec = new DatasetSpec(dataset, version, List.of(TensorSpec.parse("x:int32"), TensorSpec.parse("label:int64")),
                "label", "tests", "reader fixture", 0, false, Instant.parse("2026-01-02T03:04:05Z"));
        this.scratch = scratch;
        this.log = new CommitLog(store, dataset, version, clock);
        new DatasetCatalog(store).create(spec);
    }

    public DatasetSpec spec() {
        return spec;
    }

    /** Whether shards written from now on get a page index, as shard-sink writes them (default), or none, as older writers did. */
    public ShardPublisher pageIndexes(boolean on) {
        this.pageIndexes = on;
        return this;
    }

    public static String sampleId(int lane, long sequence, int row) {
        return "s-" + lane + "-" + sequence + "-" + row;
    }

    public static long label(int lane, long sequence, int row) {
        return (lane + sequence + row) % 3;
    }

    /** Writes and uploads one shard of {@code rows} samples; does not commit it. */
    public ShardEntry write(int lane, long sequence, int rows) {
        ShardId id = new ShardId(spec.name(), spec.version(), lane, sequence);
        List<SampleRow> samples = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            samples.add(new SampleRow(sampleId(lane, sequence, r), "dev-" + lane, BASE_TIME + sequence * 1000 + r,
                    Map.of("x", TensorBytes.int32(r), "label", TensorBytes.int64(label(lane, sequence, r))),
                    Map.of("lane", Integer.toString(lane))));
        }
        Path file = scratch.resolve(id.laneAndSequence().replace('/', '_') + ".h5");
        new ShardWriter().write(file, spec, id, samples);
        try {
            ShardFileDigest digest = ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE);
            ShardEntry entry = ShardEntry.of(id, rows, digest.bytes(), digest.sha256(), spec.fingerprint(),
                    BASE_TIME + sequence * 1000, BASE_TIME + sequence * 1000 + rows - 1);
            store.putIfAbsent(DatasetLayout.shardKey(id), file);
            Files.delete(file);
            return pageIndexes
                    ? entry.withPageIndex(PageIndexUpload.publish(store, entry.objectKey(), digest.pageIndex()).orElseThrow())
                    : entry;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Commits shards as one new snapshot; returns its id. */
    public long commit(List<ShardEntry> shards) {
        CommitResult result = log.commit(shards, "test-publisher", Map.of());
        return result.snapshotId();
    }

    /** Writes one shard per {@code (lane, rows)} pair at the given sequence and commits them together. */
    public long publish(long sequence, int... rowsPerLane) {
        List<ShardEntry> shards = new ArrayList<>();
        for (int lane = 0; lane < rowsPerLane.length; lane++) {
            shards.add(write(lane, sequence, rowsPerLane[lane]));
        }
        return commit(shards);
    }
}
