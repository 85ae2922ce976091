package io.shardflow.sink;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.schemas.internal.ShardSealed;
import io.shardflow.sink.spool.ShardSpool;
import io.shardflow.sink.write.BuiltShard;
import org.apache.kafka.common.TopicPartition;

/**
 * A sealed shard on its way into the commit log, with the progress made so far, so an attempt that
 * fails (object store down) is resumed where it stopped instead of rebuilding and re-uploading.
 */
final class PendingShard {

    final ShardId shard;
    final TopicPartition partition;
    final ShardSpool spool;
    final ShardSealed seal;
    /** The HDF5 shard, in memory or on local disk, once built. */
    BuiltShard built;
    /** The entry describing the stored object, once uploaded (or found already there). */
    ShardEntry uploaded;

    PendingShard(ShardId shard, TopicPartition partition, ShardSpool spool, ShardSealed seal) {
        this.shard = shard;
        this.partition = partition;
        this.spool = spool;
        this.seal = seal;
    }

    String datasetVersion() {
        return shard.dataset() + "/" + shard.version();
    }

    /** Releases local resources: the spool file and the built shard's memory or file. The shard itself is not touched. */
    void release() {
        spool.close();
        if (built != null) {
            built.release();
        }
    }
}
