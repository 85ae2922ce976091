package io.shardflow.ingest.seal;

import io.shardflow.schemas.internal.SealReason;
import java.time.Duration;
import java.util.Optional;

/**
 * The standard seal policy: a shard is sealed when it holds {@code maxSamples} samples, when the
 * next sample would take it past {@code maxBytes} of tensor payload plus attributes, or when it has been open for
 * {@code maxAge}. A single sample larger than {@code maxBytes} still gets a shard of its own rather
 * than being refused here; oversize samples are the validator's business.
 */
public record SealLimits(int maxSamples, long maxBytes, Duration maxAge) implements SealPolicy {

    public SealLimits {
        if (maxSamples < 1) {
            throw new IllegalArgumentException("shard.max.samples must be at least 1, was " + maxSamples);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("shard.max.bytes must be at least 1, was " + maxBytes);
        }
        if (maxAge == null || maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("shard.max.age.ms must be positive, was " + maxAge);
        }
    }

    @Override
    public Optional<SealReason> sealBeforeAdding(ShardProgress shard, long nextSampleBytes) {
        boolean wouldOverflow = shard.sampleCount() > 0 && shard.budgetBytes() + nextSampleBytes > maxBytes;
        return wouldOverflow ? Optional.of(SealReason.BYTES) : Optional.empty();
    }

    @Override
    public Optional<SealReason> sealAfterAdding(ShardProgress shard) {
        if (shard.sampleCount() >= maxSamples) {
            return Optional.of(SealReason.COUNT);
        }
        if (shard.budgetBytes() >= maxBytes) {
            return Optional.of(SealReason.BYTES);
        }
        return Optional.empty();
    }

    @Override
    public Optional<SealReason> sealOnTick(ShardProgress shard, long nowMillis) {
        boolean tooOld = shard.sampleCount() > 0 && nowMillis - shard.openedAtMillis() >= maxAge.toMillis();
        return tooOld ? Optional.of(SealReason.AGE) : Optional.empty();
    }
}
