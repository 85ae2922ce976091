package io.shardflow.ingest.seal;

import io.shardflow.schemas.internal.SealReason;
import java.util.Optional;

/**
 * Decides when an open shard is sealed. Three moments are asked about, so that no shard ever
 * exceeds its byte budget and a quiet stream still seals:
 * before a sample is added (would it overflow?), after it is added (is it full?), and on a
 * wall-clock tick (is it too old?). Times are passed in, never read from a clock here.
 */
public interface SealPolicy {

    /** Seal the shard before adding a sample of {@code nextSampleBytes}, because it would not fit. */
    Optional<SealReason> sealBeforeAdding(ShardProgress shard, long nextSampleBytes);

    /** Seal the shard right after a sample was added, because it is full. */
    Optional<SealReason> sealAfterAdding(ShardProgress shard);

    /** Seal the shard on a wall-clock tick at {@code nowMillis}, because it has been open too long. */
    Optional<SealReason> sealOnTick(ShardProgress shard, long nowMillis);
}
