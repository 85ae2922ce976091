package io.shardflow.reader;

import io.shardflow.dataset.shard.SampleRow;

/**
 * One sample as a reader yields it.
 *
 * @param shardId  the shard it was read from
 * @param rowIndex its row in that shard
 */
public record ReadSample(String shardId, int rowIndex, SampleRow row) {
}
