package io.shardflow.sink.write;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import io.shardflow.dataset.pages.ShardFileDigest;
import io.shardflow.dataset.shard.ShardAppender;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.shard.ShardImage;
import io.shardflow.dataset.shard.ShardImageAppender;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.source.SampleSource;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Turns a sealed shard's spooled decisions into an HDF5 file, in memory when the {@link MemoryBudget}
 * has room for it and the writer can ({@link ShardFileWriter#openInMemory}), else on local disk: in
 * memory the file is hashed and uploaded from where it was built, sparing a page-cache write, two
 * reads back and an unlink per shard, and the bytes are the same either way. The decisions name the
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

    /** Room for an in-memory file's headers, and its per-row datasets (ids, time, attributes), beyond the tensor payload. */
    private static final long HEADROOM_BYTES = 1L << 20;
    private static final long ROW_HEADROOM_BYTES = 1L << 10;

    private final ShardFileWriter writer;
    private final Path workDir;
    private final SampleSource samples;
    private final MemoryBudget memory;

    /** Every shard built on disk. */
    public ShardBuilder(ShardFileWriter writer, Path workDir, SampleSource samples) {
        this(writer, workDir, samples, new MemoryBudget(0));
    }

    public ShardBuilder(ShardFileWriter writer, Path workDir, SampleSource samples, MemoryBudget memory) {
        this.writer = writer;
        this.workDir = workDir;
        this.samples = samples;
        this.memory = memory;
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
        BuiltShard inMemory = buildInMemory(id, spec, seal, file, named, rows, sourceOffsets.length);
        if (inMemory != null) {
            return inMemory;
        }
        try (ShardAppender appender = writer.open(file, spec, id, seal.getSampleCount())) {
            samples.read(id.lane(), named, sourced -> appender.append(rows.next(sourced)));
            rows.checkComplete(seal.getPayloadBytes());
            appender.finish();
        }
        // One read of the file hashes it whole (the entry's sha256) and page by page (its page index).
        ShardFileDigest digest = ShardFileDigest.of(file, PageIndex.DEFAULT_PAGE_SIZE);
        return new BuiltShard(id, file, entry(id, spec, rows, sourceOffsets.length, digest), digest.pageIndex());
    }

    /**
     * The shard built in memory, or null when the budget has no room or the writer cannot. The file
     * is about the payload's size, and the library's buffer and the copy out of it are both held at the
     * end of the build: the reservation is twice the expected size (the payload, a MiB of headers and a
     * KiB per row beside it) until only the copy is left. The library grows its buffer past the
     * expected size if it must, so an estimate that falls short costs memory, never the shard.
     */
    private BuiltShard buildInMemory(ShardId id, DatasetSpec spec, ShardSealed seal, Path file, SortedSet<Long> named,
            RowStream rows, int sampleCount) {
        long expected = seal.getPayloadBytes() + HEADROOM_BYTES + (long) seal.getSampleCount() * ROW_HEADROOM_BYTES;
        MemoryBudget.Reservation reservation = memory.tryReserve(2 * expected);
        if (reservation == null) {
            return null;
        }
        ShardImage image = null;
        try {
            Optional<ShardImageAppender> opened = writer.openInMemory(file, spec, id, seal.getSampleCount(), expected);
            if (opened.isEmpty()) {
                reservation.close();
                return null;
            }
            try (ShardImageAppender appender = opened.get()) {
                samples.read(id.lane(), named, sourced -> appender.append(rows.next(sourced)));
                rows.checkComplete(seal.getPayloadBytes());
                image = appender.finish();
            }
            reservation.shrinkTo(image.size());
            // One pass over the bytes hashes them whole (the entry's sha256) and page by page (its page index).
            ShardFileDigest digest = ShardFileDigest.of(image.bytes(), PageIndex.DEFAULT_PAGE_SIZE);
            return new BuiltShard(id, file, image, reservation, entry(id, spec, rows, sampleCount, digest), digest.pageIndex());
        } catch (RuntimeException | Error e) {
            if (image != null) {
                image.close();
            }
            reservation.close();
            throw e;
        }
    }

    private static ShardEntry entry(ShardId id, DatasetSpec spec, RowStream rows, int sampleCount, ShardFileDigest digest) {
        return new ShardEntry(id.toString(), DatasetLayout.shardKey(id), id.lane(), id.sequence(), sampleCount, digest.bytes(),
                digest.sha256(), spec.fingerprint(), rows.firstProducedAt(), rows.lastProducedAt());
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
