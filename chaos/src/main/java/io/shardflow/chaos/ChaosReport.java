package io.shardflow.chaos;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of a chaos run: what was published and acknowledged, every fault injected, and what
 * the check found in object storage. {@link #ok()} only when nothing was lost, nothing doubled, every
 * object matched its entry, every snapshot was readable and no service died on its own.
 */
public final class ChaosReport {

    private final ChaosOptions options;
    private final Duration took;
    private final long published;
    private final long acknowledged;
    private final long sends;
    private final long sendFailures;
    private final ChaosJournal journal;
    private final ChaosChecker.Result check;
    private final long spoolFilesLeft;
    private final List<String> violations;

    ChaosReport(ChaosOptions options, Duration took, long published, long acknowledged, long sends, long sendFailures,
                ChaosJournal journal, ChaosChecker.Result check, long spoolFilesLeft, List<String> extraViolations) {
        this.options = options;
        this.took = took;
        this.published = published;
        this.acknowledged = acknowledged;
        this.sends = sends;
        this.sendFailures = sendFailures;
        this.journal = journal;
        this.check = check;
        this.spoolFilesLeft = spoolFilesLeft;
        List<String> all = new ArrayList<>(journal.violations());
        all.addAll(extraViolations);
        if (check != null) {
            all.addAll(check.problems());
        }
        if (spoolFilesLeft > 0) {
            all.add(spoolFilesLeft + " spool or work files left in the shard-sinks after the drain (abandoned spools)");
        }
        this.violations = List.copyOf(all);
    }

    public boolean ok() {
        return violations.isEmpty() && check != null;
    }

    public long missing() {
        return check == null ? -1 : check.missing();
    }

    public long duplicated() {
        return check == null ? -1 : check.duplicated();
    }

    public long committedSamples() {
        return check == null ? -1 : check.distinctIds();
    }

    public long acknowledged() {
        return acknowledged;
    }

    public Map<ChaosJournal.Kind, Integer> faultCounts() {
        return journal.counts();
    }

    public List<String> violations() {
        return violations;
    }

    public void print(PrintWriter out) {
        out.println();
        out.printf(Locale.ROOT, "== chaos report: seed %d, %s, %d s ==%n", options.seed(), options.s3Kind(), took.toSeconds());
        out.printf(Locale.ROOT, "published  %d samples (ids unique), %d sends, %d failed sends re-sent with the same id; "
                + "acknowledged by the broker: %d%n", published, sends, sendFailures, acknowledged);
        out.println("faults injected:");
        journal.counts().forEach((kind, count) -> out.printf(Locale.ROOT, "  %-17s %3d   %s%n", kind, count, kind.description));
        out.println("fault log (time since start, kind, target, length, detail):");
        journal.faults().forEach(f -> out.println("  " + ChaosJournal.line(f)));
        if (!journal.events().isEmpty()) {
            out.println("events:");
            journal.events().forEach(e -> out.println("  " + e));
        }
        if (check != null) {
            out.printf(Locale.ROOT, "object storage: %d log entries, snapshots 1..%d %s, %d shards, %d rows%n",
                    check.entries(), check.entries(), check.snapshotsReadable() ? "all readable" : "NOT all readable",
                    check.shards(), check.rows());
            out.printf(Locale.ROOT, "  checksum mismatches %d, missing objects %d, objects referenced twice %d, "
                            + "value mismatches %d, orphan objects (uploaded, never committed) %d%n",
                    check.checksumMismatches(), check.missingObjects(), check.objectsReferencedTwice(), check.valueMismatches(),
                    check.orphanObjects());
            out.printf(Locale.ROOT, "samples: acknowledged %d, committed %d distinct, missing %d, duplicated %d, "
                            + "never published %d, unacknowledged but committed %d%n",
                    check.acknowledged(), check.distinctIds(), check.missing(), check.duplicated(), check.unexpected(),
                    check.unacknowledgedPresent());
        }
        out.printf(Locale.ROOT, "spool/work files left in the shard-sinks after the drain: %d%n", spoolFilesLeft);
        if (violations.isEmpty()) {
            out.println("RESULT: OK - nothing lost, nothing duplicated");
        } else {
            out.println("RESULT: FAILED - " + violations.size() + " violations:");
            violations.forEach(v -> out.println("  " + v));
        }
        out.flush();
    }
}
