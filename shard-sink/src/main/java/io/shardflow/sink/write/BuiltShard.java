package io.shardflow.sink.write;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.pages.PageIndex;
import java.nio.file.Path;

/**
 * An HDF5 shard written to local disk, with the commit-log entry that will describe it and its page
 * index (dataset/FORMAT.md), which the uploader stores next to it.
 */
public record BuiltShard(ShardId id, Path file, ShardEntry entry, PageIndex pageIndex) {
}
