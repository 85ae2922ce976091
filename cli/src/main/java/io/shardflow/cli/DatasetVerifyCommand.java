package io.shardflow.cli;

import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.dataset.verify.SnapshotVerifier.VerificationReport;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code shardflow dataset verify NAME VERSION}: everything a snapshot promises, checked against
 * object storage. Exit code 0 when clean, 1 with one line per problem otherwise.
 */
@Command(name = "verify", description = "Check a snapshot (latest by default): every shard's sha256, size and sample"
        + " count, no shard or sample id twice, spec fingerprints, and that checkpoints agree with the log entries."
        + " Exits 1 on any problem.")
final class DatasetVerifyCommand extends DatasetSubcommand {

    @Mixin
    SnapshotArgs target;
    @Option(names = "--json")
    boolean json;

    @Override
    public Integer call() {
        DatasetSpec spec = requireSpec(target.name, target.version);
        Snapshot snapshot = target.in(log(target.name, target.version));
        VerificationReport report;
        try (DatasetScratch scratch = new DatasetScratch("verify")) {
            report = new SnapshotVerifier(store(), scratch.dir()).verify(spec, snapshot, clock);
        }
        List<String> problems = report.problems();
        PrintWriter out = out();
        if (json) {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("dataset", target.name);
            view.put("version", target.version);
            view.put("snapshotId", snapshot.snapshotId());
            view.put("shards", report.shards());
            view.put("samples", report.samples());
            view.put("ok", problems.isEmpty());
            view.put("problems", problems);
            out.println(JsonOutput.write(view));
        } else {
            problems.forEach(p -> out.println("PROBLEM " + p));
            out.printf("%s/%s snapshot %d: %d shards, %d samples: %s%n", target.name, target.version, snapshot.snapshotId(),
                    report.shards(), report.samples(), problems.isEmpty() ? "OK" : problems.size() + " problems");
        }
        return problems.isEmpty() ? 0 : 1;
    }
}
