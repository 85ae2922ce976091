package io.shardflow.cli;

import io.shardflow.dataset.lifecycle.Expirer;
import io.shardflow.dataset.log.RetentionPolicy;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code shardflow dataset retention NAME VERSION}: shows or sets the policy 'dataset expire' applies. */
@Command(name = "retention", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Show the retention policy of a dataset version, or set it (a retention entry in the log).",
                "'dataset expire' applies it; the latest and every tagged snapshot are always kept."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow dataset retention cams v1 --keep-last 20 --keep-days 30",
                "  bin/shardflow dataset retention cams v1 --json"})
final class DatasetRetentionCommand extends DatasetLifecycleSubcommand {

    @Mixin
    RetentionOptions retention;

    @Override
    public Integer call() {
        requireSpec(name, version);
        RetentionPolicy policy;
        Long snapshot = null;
        if (!retention.given()) {
            policy = writableLog().view().retention();
        } else {
            policy = retention.policy();
            snapshot = Expirer.setPolicy(writableLog(), policy, committer);
        }
        if (json) {
            Map<String, Object> out = new LinkedHashMap<>(policy.toDetails());
            out.put("dataset", name);
            out.put("version", version);
            out.put("snapshotId", snapshot);
            out().println(JsonOutput.write(out));
        } else {
            out().printf("%s/%s retention: %s%s%n", name, version, policy,
                    snapshot == null ? "" : " (set by snapshot " + snapshot + ")");
        }
        return 0;
    }
}
