package io.shardflow.cli;

import io.shardflow.cli.bench.BenchOptions;
import io.shardflow.cli.bench.BenchReport;
import io.shardflow.cli.bench.BenchResults;
import io.shardflow.cli.bench.BenchSuite;
import io.shardflow.cli.bench.MarkdownTable;
import io.shardflow.cli.bench.SampleShape;
import io.shardflow.stack.S3Kind;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The benchmark suite: every figure of the performance table with its raw baseline measured in the
 * same run, on fresh local stacks, written as JSON, a markdown table and PNG plots. Ratios are the
 * figures to compare across machines; absolute numbers on a shared 2-core box are noise.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Measure the performance figures against raw baselines in one run, on fresh local stacks: "
                + "P1 publish->committed vs raw Kafka produce+consume (each sample size, each S3 server), "
                + "P1a ingest alone vs raw consume, P1b sink alone vs raw consume + S3 PUT, broker bytes per tensor byte, "
                + "P2 seal latency, P3 Python reader (when python/shardflow/tools/bench_read.py exists), P4 sink heap and RSS by shard size, "
                + "CPU steady-state CPU-seconds per GB of ingest-app + shard-sink vs the raw clients (warm-up apart), "
                + "P5 scale-out: 1, 2, 4 instances of each service, each under a cgroup CPU quota, "
                + "START service JVM start to ready (default, AppCDS), P6 the web console's first page, GW the HTTP gateway vs a raw Kafka producer of the same 64 KiB records (samples/s, p50/p99 at half saturation, heap past saturation), EDGE the Python edge SDK vs raw confluent-kafka and its queue vs SQLite and persist-queue.",
                "Writes bench-results.json, bench-results.md and PNG plots into --out; prints the table (or the JSON with --json)."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow bench --quick                  # every figure, small sizes, about 10 minutes on 2 cores",
                "  bin/shardflow bench                          # every figure, full sizes (1 GiB shards in P4)",
                "  bin/shardflow bench --only p1 --s3 s3proxy --samples 20000",
                "  bin/shardflow bench --only p4 --shard-mib 64,256,1024 --writers hdf5",
                "  bin/shardflow bench --only cpu,p1a,p1b --s3 s3proxy --profile   # steady-state CPU per GB; profile.md: where it goes",
                "  bin/shardflow bench --only p5 --s3 s3proxy --quota 0.25 --scale-out 1,2,4",
                "  bin/shardflow bench --only edge --s3 s3proxy",
                "  bin/shardflow bench --only gw --s3 s3proxy --out bench/results/gateway       # the HTTP gateway"})
final class BenchCommand implements Callable<Integer> {

    @Option(names = "--quick", description = "smaller defaults (10000 samples, 2000 warm-up, 0.25 GB steady state, P4 shards of 64 and "
            + "256 MiB, P2 for 20 s)")
    boolean quick;
    @Option(names = "--only", split = ",", paramLabel = "FIGURE", description = "figures to run, of p1, bytes, cpu, p1a, p1b, p2, p3, p4, p5, "
            + "start, p6, gw, edge (default: all)")
    List<String> only = List.of();
    @Option(names = "--s3", split = ",", defaultValue = "s3proxy,minio",
            description = "S3 servers: P1 runs on each, the other figures on the first (default: ${DEFAULT-VALUE})")
    List<String> s3;
    @Option(names = "--sizes", split = ",", defaultValue = "12kb,150kb", description = "sample sizes of P1: 12kb, 150kb, or an image edge in pixels (default: ${DEFAULT-VALUE})")
    List<String> sizes;
    @Option(names = "--samples", description = "12 KB samples per timed run (other sizes carry the same bytes) (default: 20000; 10000 with --quick)")
    Long samples;
    @Option(names = "--warmup", description = "12 KB samples (other sizes: the same bytes) through each pipeline, stage and raw baseline "
            + "before its clock and CPU counters start: JIT compilation and first shards, reported apart (default: 10000; 2000 with --quick)")
    Long warmup;
    @Option(names = "--steady-gb", description = "GB of tensors through the pipeline in the timed part of the steady-state CPU figure "
            + "(default: 2; 0.25 with --quick)")
    Double steadyGb;
    @Option(names = "--quota", defaultValue = "0.25", description = "CPUs each service instance may use in P5 (a cgroup CPU quota) "
            + "(default: ${DEFAULT-VALUE})")
    double quota;
    @Option(names = "--scale-out", split = ",", defaultValue = "1,2,4", description = "instances of each service in P5, each at --quota; "
            + "the first count is the one the others are compared with (default: ${DEFAULT-VALUE})")
    List<Integer> scaleOut;
    @Option(names = "--start-repeats", description = "start-ups per service and JVM variant in the start-up figure (default: 3; 2 with --quick)")
    Integer startRepeats;
    @Option(names = "--shard-samples", defaultValue = "1000", description = "shard.max.samples of the throughput runs (default: ${DEFAULT-VALUE})")
    int shardSamples;
    @Option(names = "--shard-mib", split = ",", description = "shard sizes of P4 in MiB (default: 64,256,1024; 64,256 with --quick)")
    List<Integer> shardMib;
    @Option(names = "--writers", split = ",", defaultValue = "jhdf,hdf5", description = "shard writers of P4 (default: ${DEFAULT-VALUE})")
    List<String> writers;
    @Option(names = "--seal-age-ms", defaultValue = "2000", description = "shard.max.age.ms of P2 (default: ${DEFAULT-VALUE})")
    long sealAgeMs;
    @Option(names = "--seal-seconds", description = "how long P2 publishes (default: 60; 20 with --quick)")
    Long sealSeconds;
    @Option(names = "--seal-rate", defaultValue = "20", description = "samples per second P2 publishes (default: ${DEFAULT-VALUE})")
    int sealRate;
    @Option(names = "--out", defaultValue = "${sys:shardflow.home:-.}/bench/results", description = "where the results go (default: ${DEFAULT-VALUE})")
    Path out;
    @Option(names = "--work-dir", defaultValue = "${sys:shardflow.home:-.}/.stack/bench", description = "where the stacks and services keep their files; wiped first (default: ${DEFAULT-VALUE})")
    Path workDir;
    @Option(names = "--profile", description = "also record P1a and P1b with JDK Flight Recorder and write where each stage's CPU goes to profile.md in --out")
    boolean profile;
    @Option(names = "--console-samples", description = "samples of the dataset P6 measures the web console's first page on, written "
            + "directly as shards of 1000 (default: 1000000; 200000 with --quick)")
    Long consoleSamples;
    @Option(names = "--json", description = "print the results JSON (the same as bench-results.json) instead of the table")
    boolean json;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = command.commandLine().getOut();
        PrintWriter err = command.commandLine().getErr();
        BenchOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            return Shardflow.USAGE;
        }
        BenchResults results = BenchSuite.standard(Clock.systemUTC()).run(options, err);
        List<Path> written = BenchReport.write(results, out);
        err.printf("bench: wrote %s%n", written);
        stdout.print(json ? JsonOutput.write(results) + System.lineSeparator() : MarkdownTable.render(results));
        stdout.flush();
        return 0;
    }

    private BenchOptions options() {
        Path checkout = Path.of(System.getProperty("shardflow.home", ".")).toAbsolutePath().normalize();
        return new BenchOptions(new LinkedHashSet<>(only.stream().map(id -> id.strip().toLowerCase(Locale.ROOT)).toList()),
                s3.stream().map(S3Kind::parse).toList(), sizes.stream().map(SampleShape::parse).toList(),
                samples != null ? samples : quick ? 10_000 : 20_000, warmup != null ? warmup : quick ? 2_000 : 10_000, shardSamples,
                shardMib != null ? shardMib : quick ? List.of(64, 256) : List.of(64, 256, 1024),
                writers.stream().map(writer -> writer.strip().toLowerCase(Locale.ROOT)).toList(), Duration.ofMillis(sealAgeMs),
                Duration.ofSeconds(sealSeconds != null ? sealSeconds : quick ? 20 : 60), sealRate, workDir.toAbsolutePath(), checkout,
                profile ? out.toAbsolutePath() : null, consoleSamples != null ? consoleSamples : quick ? 200_000 : 1_000_000,
                Math.round((steadyGb != null ? steadyGb : quick ? 0.25 : 2.0) * 1e9), quota, scaleOut,
                startRepeats != null ? startRepeats : quick ? 2 : 3);
    }
}
