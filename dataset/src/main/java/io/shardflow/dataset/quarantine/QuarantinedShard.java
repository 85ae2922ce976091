package io.shardflow.dataset.quarantine;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A sealed shard the sink set aside instead of committing, because it could not be built. Stored
 * create-only at {@code datasets/<d>/<v>/quarantine/lane-NNNNN/shard-NNNNNNNNNNNN.json}
 * (dataset/FORMAT.md); the sink moves its offsets past the shard only once this record is durable.
 *
 * @param shardId         also the key of the shard's records on the shard-assignments topic
 * @param objectKey       where the shard would have been stored; nothing is there
 * @param reason          a stable code, see {@link #UNBUILDABLE}
 * @param detail          the failure, exception class first
 * @param sampleCount     samples the seal marker announced
 * @param sourceOffsets   shard-assignments partition ("topic-partition") to the offset the sink's
 *                        consumer stands at once the shard is set aside, as in a commit entry
 */
public record QuarantinedShard(String shardId, String objectKey, String reason, String detail, int sampleCount,
                               String specFingerprint, Map<String, Long> sourceOffsets, String quarantinedBy,
                               Instant quarantinedAt) {

    public static final int FORMAT_VERSION = 1;
    /** Building the HDF5 file failed on the shard's data (e.g. the shard writer refused a row). */
    public static final String UNBUILDABLE = "UNBUILDABLE";

    public QuarantinedShard {
        Objects.requireNonNull(shardId, "shardId");
        Objects.requireNonNull(objectKey, "objectKey");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(specFingerprint, "specFingerprint");
        sourceOffsets = Map.copyOf(sourceOffsets);
        Objects.requireNonNull(quarantinedBy, "quarantinedBy");
        Objects.requireNonNull(quarantinedAt, "quarantinedAt");
    }
}
