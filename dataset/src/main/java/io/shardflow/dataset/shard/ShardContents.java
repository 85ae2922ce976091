package io.shardflow.dataset.shard;

import java.util.List;

/** Everything a shard file holds, as read back by {@link ShardReader}. */
public record ShardContents(String dataset, String version, String shardId, String specFingerprint, List<SampleRow> rows) {

    public ShardContents {
        rows = List.copyOf(rows);
    }
}
