package io.shardflow.cli;

import io.shardflow.dataset.lifecycle.Tags;
import io.shardflow.dataset.log.CommitLog;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shardflow dataset tag NAME VERSION [TAG]}: names a snapshot forever, or lists the names. */
@Command(name = "tag", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Name a snapshot (create-only: a tag never moves and is never reused), or list the tags.",
                "Expiry keeps every tagged snapshot."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow dataset tag cams v1 paper-2026            # tags the latest snapshot",
                "  bin/shardflow dataset tag cams v1 baseline --snapshot 42",
                "  bin/shardflow dataset tag cams v1 --json                 # lists the tags"})
final class DatasetTagCommand extends DatasetLifecycleSubcommand {

    @Parameters(index = "2", arity = "0..1", paramLabel = "TAG", description = "tag to create; none: list the tags")
    String tag;
    @Option(names = "--snapshot", paramLabel = "N", defaultValue = "-1", description = "snapshot to tag (default: the latest)")
    long snapshot;

    @Override
    public Integer call() {
        requireSpec(name, version);
        CommitLog log = writableLog();
        if (tag == null) {
            Map<String, Long> tags = log.view().tags();
            if (json) {
                out().println(JsonOutput.write(Map.of("dataset", name, "version", version, "tags", tags)));
            } else if (tags.isEmpty()) {
                out().printf("%s/%s has no tags%n", name, version);
            } else {
                tags.forEach((t, id) -> out().printf("%-32s  snapshot %d%n", t, id));
            }
            return 0;
        }
        long tagged = Tags.create(log, tag, snapshot, committer);
        if (json) {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("dataset", name);
            result.put("version", version);
            result.put("tag", tag);
            result.put("snapshotId", tagged);
            out().println(JsonOutput.write(result));
        } else {
            out().printf("tag %s names snapshot %d of %s/%s%n", tag, tagged, name, version);
        }
        return 0;
    }
}
