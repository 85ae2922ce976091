package io.shardflow.cli;

import io.shardflow.chaos.ChaosOptions;
import io.shardflow.chaos.ChaosReport;
import io.shardflow.chaos.ChaosRun;
import io.shardflow.stack.S3Kind;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "chaos", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow chaos                    # short form, about 3 minutes",
                "  bin/shardflow chaos --long --s3 minio  # long form, about 13 minutes"},
        description = "Prove exactly-once under faults: run a local "
        + "stack with two ingest-app and two shard-sink JVMs, publish samples with unique ids while killing (-9) services, "
        + "freezing a shard-sink past its session timeout (a zombie), stopping the S3 server and restarting the broker; "
        + "then check from object storage alone that every sample the broker acknowledged is committed exactly once, every "
        + "shard matches its checksum and every snapshot is readable. Exit code 0 only if all of that holds. Short form "
        + "(default): 20,000 samples, 2 faults of each kind, ~3 minutes. Long form: --long. Progress (samples acknowledged, "
        + "then committed) goes to the error stream.")
final class ChaosCommand implements Callable<Integer> {

    @Option(names = "--long", description = "the long form: 100,000 samples, 10 faults of each kind, 30 s S3 outages "
            + "(about 13 minutes on 2 cores); the options below override it")
    boolean longForm;
    @Option(names = "--samples", description = "samples to publish (short form 20,000)")
    Long samples;
    @Option(names = "--kills", description = "faults of each kind: ingest kills, sink kills, zombies, S3 outages, broker restarts")
    Integer kills;
    @Option(names = "--ingest-kills", description = "kill -9 of an ingest-app JVM (overrides --kills)")
    Integer ingestKills;
    @Option(names = "--sink-kills", description = "kill -9 of a shard-sink JVM (overrides --kills)")
    Integer sinkKills;
    @Option(names = "--zombies", description = "shard-sink frozen past its session timeout, then resumed (overrides --kills)")
    Integer zombies;
    @Option(names = "--s3-outages", description = "S3 server stopped, then restarted (overrides --kills)")
    Integer s3Outages;
    @Option(names = "--broker-restarts", description = "broker killed (-9) and restarted (overrides --kills)")
    Integer brokerRestarts;
    @Option(names = "--s3-outage-seconds", description = "how long each S3 outage lasts (short form 10, long 30)")
    Integer s3OutageSeconds;
    @Option(names = "--broker-down-seconds", description = "how long the broker stays down after a kill -9 (default 2)")
    Integer brokerDownSeconds;
    @Option(names = "--span-seconds", description = "publishing (and the faults) spread over this long")
    Integer spanSeconds;
    @Option(names = "--crash-points", description = "where the shard-sinks halt on purpose, point:probability[,...], e.g. after-upload:0.02,after-commit:0.02")
    String crashPoints;
    @Option(names = "--freeze-points", description = "where the shard-sinks stop themselves (SIGSTOP) on purpose, point:probability[,...]")
    String freezePoints;
    @Option(names = "--seed", defaultValue = "42", description = "seed of the fault schedule and the samples (default: ${DEFAULT-VALUE})")
    long seed;
    @Option(names = "--s3", defaultValue = "s3proxy", description = "S3 server of the stack: s3proxy or minio (default: ${DEFAULT-VALUE})")
    String s3;
    @Option(names = "--work-dir", defaultValue = "${sys:shardflow.home:-.}/.stack/chaos", description = "where the stack, services and reports go; wiped first (default: ${DEFAULT-VALUE})")
    Path workDir;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = command.commandLine().getOut();
        ChaosOptions base = longForm ? ChaosOptions.longForm(workDir, seed) : ChaosOptions.shortForm(workDir, seed);
        int each = kills != null ? kills : -1;
        long count = samples != null ? samples : base.samples();
        int ingest = pick(ingestKills, each, base.ingestKills());
        int sink = pick(sinkKills, each, base.sinkKills());
        int zombie = pick(zombies, each, base.zombies());
        int s3Down = pick(s3Outages, each, base.s3Outages());
        Duration s3Length = s3OutageSeconds != null ? Duration.ofSeconds(s3OutageSeconds) : base.s3OutageLength();
        int broker = pick(brokerRestarts, each, base.brokerRestarts());
        ChaosOptions options = new ChaosOptions(count,
                spanSeconds != null ? Duration.ofSeconds(spanSeconds)
                        : ChaosOptions.span(count, ingest, sink, zombie, s3Down, s3Length, broker),
                ingest, sink, zombie, s3Down, s3Length, broker,
                brokerDownSeconds != null ? Duration.ofSeconds(brokerDownSeconds) : base.brokerDownLength(),
                crashPoints != null ? crashPoints : base.crashPoints(),
                freezePoints != null ? freezePoints : base.freezePoints(),
                base.sessionTimeout(), base.drainTimeout(), base.shardSamples(), seed, S3Kind.parse(s3), workDir);
        PrintWriter err = command.commandLine().getErr();
        ChaosProgressLines progress = new ChaosProgressLines((task, unit, total) -> Progress.start(err, task, unit, total));
        ChaosReport report;
        try {
            report = ChaosRun.run(options, out, progress);
        } finally {
            progress.finished();
        }
        return report.ok() ? 0 : 1;
    }

    private static int pick(Integer specific, int each, int fallback) {
        return specific != null ? specific : each >= 0 ? each : fallback;
    }
}
