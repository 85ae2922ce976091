package io.shardflow.cli;

import io.shardflow.dataset.lifecycle.SampleDeleter;
import io.shardflow.dataset.lifecycle.SampleFilter;
import io.shardflow.dataset.lifecycle.ShardRewriter;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.ShardWriterKind;
import io.shardflow.dataset.spec.DatasetSpec;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code shardflow dataset delete NAME VERSION}: a new snapshot without some samples. */
@Command(name = "delete", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Delete samples: a new snapshot (a delete entry recording the criterion and the reason) in which",
                "the shards that held them are rewritten without them; other shards are untouched. Older snapshots",
                "still hold the rows until 'dataset expire' drops them and deletes their objects.",
                "Exit 1 when nothing matches."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow dataset delete cams v1 --sample-id s-17 --sample-id s-18 --reason \"erasure request 4711\"",
                "  bin/shardflow dataset delete cams v1 --device-id cam-07 --reason \"faulty sensor\"",
                "  bin/shardflow dataset delete cams v1 --produced-between 2026-03-01T00:00:00Z 2026-03-01T01:00:00Z \\",
                "      --reason \"clock skew\" --json",
                "  bin/shardflow dataset expire cams v1 --keep-last 1   # then drop the old objects"})
final class DatasetDeleteCommand extends DatasetLifecycleSubcommand {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Criterion criterion;
    @Option(names = "--reason", required = true, description = "why (recorded in the log)")
    String reason;
    @Option(names = "--writer", defaultValue = "jhdf", paramLabel = "jhdf|hdf5",
            description = "shard writer, as shard-sink's shard.writer (default: ${DEFAULT-VALUE})")
    String writer;

    static final class Criterion {
        @Option(names = "--sample-id", paramLabel = "ID", description = "a sample id (repeatable)")
        List<String> sampleIds;
        @Option(names = "--device-id", paramLabel = "ID", description = "every sample of a device (repeatable)")
        List<String> deviceIds;
        @Option(names = "--produced-between", arity = "2", paramLabel = "TIME",
                description = "samples produced in [A, B): ISO-8601 instants or epoch milliseconds")
        List<String> producedBetween;

        SampleFilter filter() {
            if (sampleIds != null) {
                return SampleFilter.sampleIds(Set.copyOf(sampleIds));
            }
            if (deviceIds != null) {
                return SampleFilter.deviceIds(Set.copyOf(deviceIds));
            }
            return SampleFilter.producedBetween(millis(producedBetween.get(0)), millis(producedBetween.get(1)));
        }

        private static long millis(String text) {
            try {
                return text.chars().allMatch(Character::isDigit) ? Long.parseLong(text) : Instant.parse(text).toEpochMilli();
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IllegalArgumentException("--produced-between: '" + text
                        + "' is neither epoch milliseconds nor an ISO-8601 instant");
            }
        }
    }

    @Override
    public Integer call() {
        DatasetSpec spec = requireSpec(name, version);
        SampleFilter filter = criterion.filter();
        try (DatasetScratch scratch = new DatasetScratch("delete")) {
            ShardRewriter rewriter = new ShardRewriter(store(), spec, ShardWriterKind.fromSetting(writer).create(),
                    scratch.dir());
            SampleDeleter.Result result = new SampleDeleter(writableLog(), rewriter, committer)
                    .delete(filter, reason, progressLines());
            if (json) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("dataset", name);
                out.put("version", version);
                out.put("snapshotId", result.snapshotId());
                out.put("scannedSnapshot", result.scannedSnapshot());
                out.put("criteria", filter.describe());
                out.put("reason", reason);
                out.put("deletedSamples", result.deletedSamples());
                out.put("removedShards", result.removed().stream().map(ShardEntry::shardId).toList());
                out.put("addedShards", result.added());
                out().println(JsonOutput.write(out));
            } else {
                out().printf("snapshot %d of %s/%s: %d samples deleted (%s), %d shards rewritten%n", result.snapshotId(),
                        name, version, result.deletedSamples(), filter.describe(), result.removed().size());
            }
            return 0;
        }
    }
}
