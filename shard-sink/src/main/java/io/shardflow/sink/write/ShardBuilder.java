package io.shardflow.sink.write;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.shard.ShardFileWriter;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a sealed shard's spooled assignments into an HDF5 file on local disk. The rows are ordered
 * by their assigned index and checked against the seal marker, so the file depends only on what
 * ingest-app committed to Kafka: a replay writes the very same bytes.
 */
public final class ShardBuilder {

    private final ShardFileWriter writer;
    private final Path workDir;

    public ShardBuilder(ShardFileWriter writer, Path workDir) {
        this.writer = writer;
        this.workDir = workDir;
    }

    public BuiltShard build(ShardId id, DatasetSpec spec, List<byte[]> spooled, ShardSealed seal) {
        if (!spec.fingerprint().equals(seal.getSpecFingerprint())) {
            throw new IllegalStateException("shard " + id + " was sealed for spec " + seal.getSpecFingerprint()
                    + " but the catalog holds " + spec.fingerprint());
        }
        SampleRow[] rows = new SampleRow[seal.getSampleCount()];
        long payload = 0;
        for (byte[] record : spooled) {
            ShardEvent event = ShardEventCodec.decode(record);
            SampleAssigned assigned = (SampleAssigned) event.getBody();
            int index = assigned.getIndex();
            if (index < 0 || index >= rows.length || rows[index] != null) {
                throw new IllegalStateException("shard " + id + " has a bad or repeated row index " + index
                        + " for " + rows.length + " sealed samples");
            }
            rows[index] = toRow(assigned.getSample(), spec);
            payload += rows[index].tensors().values().stream().mapToLong(b -> b.length).sum();
        }
        if (spooled.size() != rows.length) {
            throw new IllegalStateException("shard " + id + " was sealed with " + rows.length + " samples but "
                    + spooled.size() + " were assigned");
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

    /**
     * The one place a decoded sample becomes a shard row: its tensor bytes, and the sample's own shape
     * of each tensor whose spec leaves a dimension free (fixed shapes come from the spec).
     */
    static SampleRow toRow(Sample sample, DatasetSpec spec) {
        Map<String, byte[]> tensors = new HashMap<>();
        Map<String, List<Integer>> shapes = new HashMap<>();
        for (Tensor tensor : sample.getTensors()) {
            ByteBuffer data = tensor.getData().duplicate();
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            tensors.put(tensor.getName(), bytes);
            if (spec.tensor(tensor.getName()).map(TensorSpec::hasFreeDimension).orElse(false)) {
                shapes.put(tensor.getName(), List.copyOf(tensor.getShape()));
            }
        }
        return new SampleRow(sample.getSampleId(), sample.getDeviceId(), sample.getProducedAt().toEpochMilli(), tensors,
                sample.getAttributes(), shapes);
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
