package io.shardflow.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.runs.CheckpointManifest;
import io.shardflow.dataset.runs.RunLayout;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code shardflow ckpt show RUN [STEP]}: one saved step in full. */
@Command(name = "show", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"A saved step (the newest by default): when and by what it was saved, the reader position it",
                "resumes from, the dataset snapshots that position reads, and every rank's files. --json prints the",
                "manifest as stored, with \"pinned\" added."})
final class CkptShowCommand extends CkptSubcommand {

    @Parameters(index = "0", paramLabel = "RUN", description = "run name")
    String run;
    @Parameters(index = "1", arity = "0..1", paramLabel = "STEP", description = "step (default: the newest saved)")
    Long step;

    @Override
    public Integer call() {
        CheckpointManifest m = requireStep(run, step == null ? OptionalLong.empty() : OptionalLong.of(step));
        boolean pinned = checkpoints().pins(run).containsKey(m.step());
        PrintWriter out = out();
        if (json) {
            byte[] stored = store().get(RunLayout.manifestKey(run, m.step())).orElseThrow();
            try {
                ObjectNode doc = (ObjectNode) new ObjectMapper().readTree(stored);
                doc.put("pinned", pinned);
                out.println(JsonOutput.write(doc));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return 0;
        }
        out.printf("run %s step %d%s%n", run, m.step(), pinned ? "  (pinned)" : "");
        out.printf("  saved %s by %d ranks (attempt %s), %s%n", m.savedAt(), m.worldSize(), m.attempt(), m.frameworks());
        out.printf("  reader: %s%n", position(m));
        out.printf("  datasets: %s%n", m.datasets().isEmpty() ? "none recorded" : String.join(", ", datasets(m)));
        for (CheckpointManifest.RankFiles rank : m.ranks()) {
            for (CheckpointManifest.SavedFile f : rank.files()) {
                out.printf("  rank %-3d %-16s %-6s %10s  sha256 %s%n", rank.rank(), f.name(), f.kind(),
                        SnapshotSummary.humanBytes(f.bytes()), f.sha256().substring(0, 16));
            }
        }
        return 0;
    }
}
