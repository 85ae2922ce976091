package io.shardflow.cli;

import io.shardflow.dataset.lifecycle.Compactor;
import io.shardflow.dataset.lifecycle.ShardRewriter;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.ShardWriterKind;
import io.shardflow.dataset.spec.DatasetSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code shardflow dataset compact NAME VERSION}: merges small shards into full ones as one new snapshot. */
@Command(name = "compact", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Merge the small shards of the latest snapshot into full ones, as one new snapshot (a replace",
                "entry). Older snapshots keep their shards until 'dataset expire' drops them. Safe to re-run after",
                "a crash: it writes the same objects and commits once."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow dataset compact cams v1 --target-samples 1000",
                "  bin/shardflow dataset compact cams v1 --json"})
final class DatasetCompactCommand extends DatasetLifecycleSubcommand {

    @Option(names = "--target-samples", paramLabel = "N", defaultValue = "1000",
            description = "a shard with fewer samples is small; merged shards hold at least N (default: ${DEFAULT-VALUE})")
    int targetSamples;
    @Option(names = "--writer", defaultValue = "jhdf", paramLabel = "jhdf|hdf5",
            description = "shard writer, as shard-sink's shard.writer (default: ${DEFAULT-VALUE})")
    String writer;

    @Override
    public Integer call() {
        DatasetSpec spec = requireSpec(name, version);
        try (DatasetScratch scratch = new DatasetScratch("compact")) {
            ShardRewriter rewriter = new ShardRewriter(store(), spec, ShardWriterKind.fromSetting(writer).create(),
                    scratch.dir());
            long started = System.nanoTime();
            Compactor.Result result = new Compactor(writableLog(), rewriter, committer)
                    .compact(spec.fingerprint(), targetSamples, progressLines());
            double seconds = (System.nanoTime() - started) / 1e9;
            if (json) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("dataset", name);
                out.put("version", version);
                out.put("snapshotId", result.snapshotId().isPresent() ? result.snapshotId().getAsLong() : null);
                out.put("removedShards", result.removed().stream().map(ShardEntry::shardId).toList());
                out.put("addedShards", result.added());
                out.put("samples", result.samples());
                out.put("seconds", seconds);
                out().println(JsonOutput.write(out));
            } else if (result.snapshotId().isPresent()) {
                out().printf("snapshot %d of %s/%s: %d small shards merged into %d (%d samples) in %.1f s%n",
                        result.snapshotId().getAsLong(), name, version, result.removed().size(), result.added().size(),
                        result.samples(), seconds);
            } else {
                out().printf("%s/%s: nothing to compact%n", name, version);
            }
            return 0;
        }
    }
}
