package io.shardflow.dataset.shard;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Specs;
import java.nio.file.Path;

/**
 * Writes one generated shard of about the given tensor bytes with the named writer, in a process
 * of its own, so a test can run it under a small heap: {@code WriteShardMain jhdf|hdf5 FILE BYTES}.
 */
public final class WriteShardMain {

    private WriteShardMain() {
    }

    public static void main(String[] args) {
        ShardWriterKind kind = ShardWriterKind.fromSetting(args[0]);
        DatasetSpec spec = Specs.imageSpec("big", "v1");
        kind.create().write(Path.of(args[1]), spec, new ShardId("big", "v1", 0, 0),
                GeneratedRows.ofTensorBytes(spec, Long.parseLong(args[2])));
    }
}
