package io.shardflow.dataset.lifecycle;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.PageIndexUpload;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Reads committed shards and writes their rewritten successors, for compaction and deletion.
 *
 * <p>A rewritten shard's id derives from what it replaces (docs/ARCHITECTURE.md, invariant 2): lane
 * {@value #REWRITE_LANE}, which no ingest lane uses, and a sequence hashed from the kind of rewrite
 * and the input shard ids. A re-run after a kill therefore writes the same keys with the same bytes,
 * and the create-only PUT (invariant 3) finds them already there.
 */
public final class ShardRewriter {

    /** The lane of rewritten shards: ingest numbers lanes by input partition, far below it. */
    public static final int REWRITE_LANE = ShardId.MAX_LANE;

    private final ObjectStore store;
    private final DatasetSpec spec;
    private final ShardFileWriter writer;
    private final Path scratch;
    private final ShardReader reader = new ShardReader();

    public ShardRewriter(ObjectStore store, DatasetSpec spec, ShardFileWriter writer, Path scratch) {
        this.store = Objects.requireNonNull(store, "store");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.scratch = Objects.requireNonNull(scratch, "scratch");
    }

    /** The rows of a committed shard, after checking the download against the log's checksum. */
    public List<SampleRow> rows(ShardEntry shard) {
        Path file = scratch.resolve("in-" + shard.lane() + "-" + shard.sequence() + ".h5");
        try {
            store.download(shard.objectKey(), file);
            String sha = ShardDigest.sha256(file);
            if (!sha.equals(shard.sha256())) {
                throw new IllegalStateException("shard " + shard.shardId() + " has sha256 " + sha + ", the log says "
                        + shard.sha256() + ": refusing to rewrite it (run dataset verify)");
            }
            return reader.read(file).rows();
        } finally {
            deleteQuietly(file);
        }
    }

    /** The id of the shard that replaces {@code inputs} in a rewrite of this kind. */
    public ShardId successorId(String kind, List<String> inputs, int index) {
        String text = kind + "\n" + String.join("\n", inputs) + "\n" + index;
        String hex = ShardDigest.sha256(text.getBytes(StandardCharsets.UTF_8));
        long sequence = Long.parseUnsignedLong(hex.substring(0, 15), 16) % (ShardId.MAX_SEQUENCE + 1);
        return new ShardId(spec.name(), spec.version(), REWRITE_LANE, sequence);
    }

    /**
     * Writes {@code rows} as shard {@code id}, create-only. If the object exists (a re-run, or another
     * writer's bytes for the same rows) it is accepted only when it holds the same rows.
     */
    public ShardEntry write(ShardId id, List<SampleRow> rows) {
        Path file = scratch.resolve("out-" + id.sequence() + ".h5");
        try {
            writer.write(file, spec, id, rows);
            String key = DatasetLayout.shardKey(id);
            if (store.putIfAbsent(key, file) == PutOutcome.ALREADY_EXISTS) {
                store.download(key, file);
                if (!reader.read(file).rows().equals(rows)) {
                    throw new IllegalStateException("object " + key + " exists with other rows than the rewrite of the"
                            + " same shards: refusing to commit it (run dataset verify)");
                }
            }
            // The stored object's bytes (ours, or an earlier run's with the same rows), and their pages.
            ShardFileDigest digest = ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE);
            String pageIndex = PageIndexUpload.publish(store, key, digest.pageIndex()).orElse(null);
            long first = rows.stream().mapToLong(SampleRow::producedAtMillis).min().orElseThrow();
            long last = rows.stream().mapToLong(SampleRow::producedAtMillis).max().orElseThrow();
            return ShardEntry.of(id, rows.size(), digest.bytes(), digest.sha256(), spec.fingerprint(), first, last)
                    .withPageIndex(pageIndex);
        } finally {
            deleteQuietly(file);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // scratch space; a leftover file is harmless
        }
    }
}
