package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.layout.ShardId;
import java.util.Objects;

/**
 * One shard as recorded in the commit log: where it is and what it must hash to. Readers trust
 * these entries, never a bucket listing (docs/ARCHITECTURE.md, invariant 4).
 *
 * @param bytes           object size in bytes
 * @param sha256          lowercase hex SHA-256 of the object's bytes
 * @param firstProducedAt smallest row {@code producedAt} (epoch ms) in the shard
 * @param lastProducedAt  largest row {@code producedAt} (epoch ms) in the shard
 * @param pageIndexSha256 SHA-256 of the shard's page index object (dataset/FORMAT.md, "Page index"),
 *                        or null for a shard written without one (older writers): readers then
 *                        read it whole instead of a page at a time
 */
public record ShardEntry(
        String shardId,
        String objectKey,
        int lane,
        long sequence,
        int sampleCount,
        long bytes,
        String sha256,
        String specFingerprint,
        long firstProducedAt,
        long lastProducedAt,
        String pageIndexSha256) {

    public ShardEntry {
        Objects.requireNonNull(shardId, "shardId");
        Objects.requireNonNull(objectKey, "objectKey");
        Objects.requireNonNull(specFingerprint, "specFingerprint");
        if (!isSha256(sha256)) {
            throw new IllegalArgumentException("shard " + shardId + ": sha256 must be 64 lowercase hex digits, got " + sha256);
        }
        if (sampleCount < 1) {
            throw new IllegalArgumentException("shard " + shardId + ": sampleCount must be >= 1, got " + sampleCount);
        }
        if (bytes < 1) {
            throw new IllegalArgumentException("shard " + shardId + ": bytes must be >= 1, got " + bytes);
        }
        if (firstProducedAt > lastProducedAt) {
            throw new IllegalArgumentException("shard " + shardId + ": firstProducedAt " + firstProducedAt
                    + " is after lastProducedAt " + lastProducedAt);
        }
        if (pageIndexSha256 != null && !isSha256(pageIndexSha256)) {
            throw new IllegalArgumentException("shard " + shardId + ": pageIndexSha256 must be 64 lowercase hex digits, got "
                    + pageIndexSha256);
        }
        ShardId parsed = ShardId.parse(shardId);
        if (parsed.lane() != lane || parsed.sequence() != sequence) {
            throw new IllegalArgumentException("shard " + shardId + ": lane " + lane + " / sequence " + sequence
                    + " disagree with the id");
        }
    }

    /** A shard without a page index. */
    public ShardEntry(String shardId, String objectKey, int lane, long sequence, int sampleCount, long bytes, String sha256,
            String specFingerprint, long firstProducedAt, long lastProducedAt) {
        this(shardId, objectKey, lane, sequence, sampleCount, bytes, sha256, specFingerprint, firstProducedAt,
                lastProducedAt, null);
    }

    /** This entry naming the page index whose bytes hash to {@code sha256} (null: none). */
    public ShardEntry withPageIndex(String sha256) {
        return new ShardEntry(shardId, objectKey, lane, sequence, sampleCount, bytes, this.sha256, specFingerprint,
                firstProducedAt, lastProducedAt, sha256);
    }

    public boolean hasPageIndex() {
        return pageIndexSha256 != null;
    }

    /** The entry for a shard written under its standard key ({@link DatasetLayout#shardKey}). */
    public static ShardEntry of(ShardId id, int sampleCount, long bytes, String sha256, String specFingerprint,
            long firstProducedAt, long lastProducedAt) {
        return new ShardEntry(id.toString(), DatasetLayout.shardKey(id), id.lane(), id.sequence(), sampleCount, bytes,
                sha256, specFingerprint, firstProducedAt, lastProducedAt);
    }

    public ShardId id() {
        return ShardId.parse(shardId);
    }

    /** 64 lowercase hex digits; a loop, not a regex: checkpoints construct 100,000 entries at a time. */
    private static boolean isSha256(String text) {
        if (text == null || text.length() != 64) {
            return false;
        }
        for (int i = 0; i < 64; i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }
}
