package io.shardflow.sink.write;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import java.nio.file.Path;

/** An HDF5 shard written to local disk, with the commit-log entry that will describe it. */
public record BuiltShard(ShardId id, Path file, ShardEntry entry) {
}
