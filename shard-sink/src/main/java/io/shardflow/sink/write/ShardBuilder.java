package io.shardflow.sink.write;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.shard.ShardAppender;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.source.SampleSource;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Turns a sealed shard's spooled decisions into an HDF5 file on local disk. The decisions name the
 * samples topic records that form the shard, each at its row index; the builder streams exactly those
 * records from the topic ({@link SampleSource}) into the writer ({@link ShardAppender}), one row at a
 * time, checking them against the seal marker, so the file depends only on what ingest-app committed
 * to Kafka: a replay writes the very same bytes.
 *
 * <p>Rows are written in the order the records arrive, which is offset order. That is the row-index
 * order because ingest-app assigns a lane's indexes in the order it reads the lane's partition; the
 * builder checks it and refuses a shard whose decisions break it rather than reorder rows in memory,
 * which would hold the whole shard again. Memory then depends on the writer: {@code shard.writer=hdf5}
 * holds one row and one chunk per dataset, jHDF the whole shard (docs/ARCHITECTURE.md § 4).
 */
public final class ShardBuilder {

    private final ShardFileWriter writer;
    private final Path workDir;
    private final SampleSource samples;

    public ShardBuilder(ShardFileWriter writer, Path workDir, SampleSource samples) {
        this.writer = writer;
        this.workDir = workDir;
        this.samples = samples;
    }

    public BuiltShard build(ShardId id, DatasetSpec spec, List<byte[]> spooled, ShardSealed seal) {
        if (!spec.fingerprint().equals(seal.getSpecFingerprint())) {
            throw new IllegalStateException("shard " + id + " was sealed for spec " + seal.getSpecFingerprint()
                    + " but the catalog holds " + spec.fingerprint());
        }
        long[] sourceOffsets = sourceOffsetsByRow(id, spooled, seal.getSampleCount());
        SortedSet<Long> named = new TreeSet<>();
        for (int index = 0; index < sourceOffsets.length; index++) {
            if (index > 0 && sourceOffsets[index] == sourceOffsets[index - 1]) {
                throw new IllegalStateException("shard " + id + " names one samples record for two rows");
            }
            if (index > 0 && sourceOffsets[index] < sourceOffsets[index - 1]) {
                throw new IllegalStateException("shard " + id + " row " + index + " names samples offset " + sourceOffsets[index]
                        + ", before row " + (index - 1) + "'s " + sourceOffsets[index - 1]
                        + ": row indexes must follow the samples partition's order");
            }
            named.add(sourceOffsets[index]);
        }
        Path file = workDir.resolve(id.dataset() + "~" + id.version() + "~" + id.laneAndSequence().replace('/', '~') + ".h5");
        RowStream rows = new RowStream(id, spec, sourceOffsets);
        try (ShardAppender appender = writer.open(file, spec, id, seal.getSampleCount())) {
            samples.read(id.lane(), named, sourced -> appender.append(rows.next(sourced)));
            rows.checkComplete(seal.getPayloadBytes());
            appender.finish();
        }
        // One read of the file hashes it whole (the entry's sha256) and page by page (its page index).
        ShardFileDigest digest = ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE);
        ShardEntry entry = new ShardEntry(id.toString(), DatasetLayout.shardKey(id), id.lane(), id.sequence(),
                sourceOffsets.length, digest.bytes(), digest.sha256(), spec.fingerprint(), rows.firstProducedAt(),
                rows.lastProducedAt());
        return new BuiltShard(id, file, entry, digest.pageIndex());
    }

    /** The samples-topic offset of each row, from the spooled assignments; every row named exactly once. */
    private static long[] sourceOffsetsByRow(ShardId id, List<byte[]> spooled, int sealedCount) {
        if (spooled.size() != sealedCount) {
            throw new IllegalStateException("shard " + id + " was sealed with " + sealedCount + " samples but "
                    + spooled.size() + " were assigned");
        }
        long[] offsets = new long[sealedCount];
        boolean[] seen = new boolean[sealedCount];
        for (byte[] record : spooled) {
            SampleAssigned assigned = (SampleAssigned) ShardEventCodec.decode(record).getBody();
            int index = assigned.getIndex();
            if (index < 0 || index >= sealedCount || seen[index]) {
                throw new IllegalStateException("shard " + id + " has a bad or repeated row index " + index
                        + " for " + sealedCount + " sealed samples");
            }
            seen[index] = true;
            offsets[index] = assigned.getSourceOffset();
        }
        return offsets;
    }
}
