package io.shardflow.sink.write;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.source.SampleSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Turns a sealed shard's spooled decisions into an HDF5 file on local disk. The decisions name the
 * samples topic records that form the shard, each at its row index; the builder reads exactly those
 * records from the topic ({@link SampleSource}), orders the rows by their assigned index and checks
 * them against the seal marker, so the file depends only on what ingest-app committed to Kafka: a
 * replay writes the very same bytes.
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
        for (long offset : sourceOffsets) {
            named.add(offset);
        }
        if (named.size() != sourceOffsets.length) {
            throw new IllegalStateException("shard " + id + " names one samples record for two rows");
        }
        Map<Long, Sample> read = samples.read(id.lane(), named);
        SampleRow[] rows = new SampleRow[sourceOffsets.length];
        long payload = 0;
        for (int index = 0; index < rows.length; index++) {
            Sample sample = read.get(sourceOffsets[index]);
            if (!sample.getDataset().equals(id.dataset()) || !sample.getVersion().equals(id.version())) {
                throw new IllegalStateException("shard " + id + " row " + index + " names a record of " + sample.getDataset()
                        + "/" + sample.getVersion() + " at offset " + sourceOffsets[index]);
            }
            rows[index] = SampleRows.of(sample, spec);
            payload += rows[index].tensors().values().stream().mapToLong(b -> b.length).sum();
        }
        if (payload != seal.getPayloadBytes()) {
            throw new IllegalStateException("shard " + id + " holds " + payload + " payload bytes, seal marker says "
                    + seal.getPayloadBytes());
        }
        List<SampleRow> ordered = List.of(rows);
        Path file = workDir.resolve(id.dataset() + "~" + id.version() + "~" + id.laneAndSequence().replace('/', '~') + ".h5");
        writer.write(file, spec, id, ordered);
        long first = ordered.stream().mapToLong(SampleRow::producedAtMillis).min().orElseThrow();
        long last = ordered.stream().mapToLong(SampleRow::producedAtMillis).max().orElseThrow();
        ShardEntry entry = new ShardEntry(id.toString(), DatasetLayout.shardKey(id), id.lane(), id.sequence(), rows.length,
                size(file), ShardDigest.sha256(file), spec.fingerprint(), first, last);
        return new BuiltShard(id, file, entry);
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

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
