package io.shardflow.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code shardflow ckpt pin RUN STEP [--note TEXT] [--unpin]}: keeps a saved step through every gc. */
@Command(name = "pin", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Pin a saved step: 'ckpt gc' and prune keep it whatever the retention, and so 'dataset expire'",
                "keeps the snapshots it reads. --unpin removes the pin."})
final class CkptPinCommand extends CkptSubcommand {

    @Parameters(index = "0", paramLabel = "RUN", description = "run name")
    String run;
    @Parameters(index = "1", paramLabel = "STEP", description = "a saved step")
    long step;
    @Option(names = "--note", defaultValue = "", description = "why it is pinned, kept with the pin")
    String note;
    @Option(names = "--unpin", description = "remove the pin instead")
    boolean unpin;
    @Option(names = "--by", defaultValue = "${env:USER:-shardflow-cli}", description = "who pins (default: ${DEFAULT-VALUE})")
    String by;

    @Override
    public Integer call() {
        boolean changed = unpin ? checkpoints().unpin(run, step) : checkpoints().pin(run, step, note, by, clock.instant());
        if (json) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("run", run);
            out.put("step", step);
            out.put("pinned", !unpin);
            out.put("changed", changed);
            out().println(JsonOutput.write(out));
        } else {
            out().printf("run %s step %d %s%n", run, step, unpin ? (changed ? "unpinned" : "was not pinned")
                    : (changed ? "pinned" : "was pinned already"));
        }
        return 0;
    }
}
