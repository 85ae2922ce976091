package io.shardflow.sink.write;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.schemas.Sample;
import io.shardflow.sink.source.SourcedSample;

/**
 * The checks a shard's rows pass as they stream from the samples topic to the writer: each record is
 * the one the next row index names and belongs to the shard's dataset version; once all arrived,
 * their count and payload bytes match the seal marker. Keeps counters only, never a row.
 */
final class RowStream {

    private final ShardId id;
    private final DatasetSpec spec;
    private final long[] sourceOffsets;
    private int next;
    private long payload;
    private long firstProducedAt = Long.MAX_VALUE;
    private long lastProducedAt = Long.MIN_VALUE;

    /** @param sourceOffsets the samples-topic offset of each row, by row index */
    RowStream(ShardId id, DatasetSpec spec, long[] sourceOffsets) {
        this.id = id;
        this.spec = spec;
        this.sourceOffsets = sourceOffsets;
    }

    /** The row the record makes, once it is checked to be the next row's. */
    SampleRow next(SourcedSample sourced) {
        if (next == sourceOffsets.length || sourced.offset() != sourceOffsets[next]) {
            throw new IllegalStateException("shard " + id + " expected row " + next + " from samples offset "
                    + (next == sourceOffsets.length ? "(none: all rows read)" : sourceOffsets[next]) + " but the source sent offset "
                    + sourced.offset());
        }
        Sample sample = sourced.sample();
        if (!sample.getDataset().equals(id.dataset()) || !sample.getVersion().equals(id.version())) {
            throw new IllegalStateException("shard " + id + " row " + next + " names a record of " + sample.getDataset()
                    + "/" + sample.getVersion() + " at offset " + sourced.offset());
        }
        SampleRow row = SampleRows.of(sample, spec);
        payload += row.tensors().values().stream().mapToLong(bytes -> bytes.length).sum();
        firstProducedAt = Math.min(firstProducedAt, row.producedAtMillis());
        lastProducedAt = Math.max(lastProducedAt, row.producedAtMillis());
        next++;
        return row;
    }

    /** Every row arrived and the payload is the seal marker's. */
    void checkComplete(long sealedPayloadBytes) {
        if (next != sourceOffsets.length) {
            throw new IllegalStateException("shard " + id + " got " + next + " of its " + sourceOffsets.length
                    + " rows from the samples topic");
        }
        if (payload != sealedPayloadBytes) {
            throw new IllegalStateException("shard " + id + " holds " + payload + " payload bytes, seal marker says "
                    + sealedPayloadBytes);
        }
    }

    long firstProducedAt() {
        return firstProducedAt;
    }

    long lastProducedAt() {
        return lastProducedAt;
    }
}
