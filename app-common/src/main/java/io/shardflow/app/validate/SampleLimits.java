package io.shardflow.app.validate;

/**
 * Per-sample limits that keep one record from costing the pipeline unbounded memory. Ids and
 * attributes end up as fixed-length strings in the shard, padded to the longest row, so their
 * lengths bound the shard's string columns (docs/ARCHITECTURE.md invariant 7; the worst case per
 * shard: docs/operating/limits.md).
 *
 * @param maxIdChars             longest sampleId or deviceId, in characters
 * @param maxAttributes          most attributes one sample may carry
 * @param maxAttributeKeyChars   longest attribute key, in characters
 * @param maxAttributeValueChars longest attribute value, in characters
 * @param maxSampleBytes         largest tensor payload; a spec may set a lower one
 */
public record SampleLimits(int maxIdChars, int maxAttributes, int maxAttributeKeyChars, int maxAttributeValueChars,
                           long maxSampleBytes) {

    public static final int DEFAULT_MAX_ID_CHARS = 256;
    public static final int DEFAULT_MAX_ATTRIBUTES = 32;
    public static final int DEFAULT_MAX_ATTRIBUTE_KEY_CHARS = 64;
    public static final int DEFAULT_MAX_ATTRIBUTE_VALUE_CHARS = 256;

    public SampleLimits {
        if (maxIdChars < 1 || maxAttributes < 0 || maxAttributeKeyChars < 1 || maxAttributeValueChars < 0 || maxSampleBytes < 1) {
            throw new IllegalArgumentException("sample limits must be positive: " + maxIdChars + ", " + maxAttributes + ", "
                    + maxAttributeKeyChars + ", " + maxAttributeValueChars + ", " + maxSampleBytes);
        }
    }

    /** The defaults, with the given payload cap. */
    public static SampleLimits withMaxSampleBytes(long maxSampleBytes) {
        return new SampleLimits(DEFAULT_MAX_ID_CHARS, DEFAULT_MAX_ATTRIBUTES, DEFAULT_MAX_ATTRIBUTE_KEY_CHARS,
                DEFAULT_MAX_ATTRIBUTE_VALUE_CHARS, maxSampleBytes);
    }
}
