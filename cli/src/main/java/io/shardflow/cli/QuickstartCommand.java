package io.shardflow.cli;

import io.shardflow.console.ConsoleSettings;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import io.shardflow.stack.LocalPipeline;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.WorkDirs;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "quickstart", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow quickstart                       # S3Proxy, 3,000 samples in 5 waves; the stack stays up",
                "  bin/shardflow quickstart --s3 minio --stop     # MinIO, and stop everything at the end"},
        description = {
        "Start a local stack, ingest-app and shard-sink, create a demo dataset, publish synthetic samples in waves",
        "and watch the dataset grow snapshot by snapshot; ends with a verified summary."})
final class QuickstartCommand implements Callable<Integer> {

    @Option(names = "--s3", defaultValue = "s3proxy", description = "S3 server of the stack: s3proxy or minio (default: ${DEFAULT-VALUE})")
    String s3;
    @Option(names = "--samples", defaultValue = "3000", description = "samples to publish in all (default: ${DEFAULT-VALUE})")
    int samples;
    @Option(names = "--waves", defaultValue = "5", description = "publish in this many waves (default: ${DEFAULT-VALUE})")
    int waves;
    @Option(names = "--shard-samples", defaultValue = "256", description = "seal a shard at this many samples (default: ${DEFAULT-VALUE})")
    int shardSamples;
    @Option(names = "--stack-dir", defaultValue = StackCommand.DEFAULT_DIR,
            description = "where the stack lives; a stack already running there is replaced (default: ${DEFAULT-VALUE})")
    Path stackDir;
    @Option(names = "--stop", description = "stop the stack at the end instead of leaving it up for readers")
    boolean stop;
    @Option(names = "--keep-running", description = "also keep ingest-app and shard-sink running at the end (Ctrl-C stops them)")
    boolean keepRunning;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    private static final String DATASET = "demo";
    private static final String VERSION = "v1";

    @Override
    public Integer call() throws Exception {
        PrintWriter out = command.commandLine().getOut();
        Instant started = Instant.now();
        if (!LocalStack.down(stackDir).isEmpty()) {
            out.printf("stopped the stack that was running in %s%n", stackDir);
        }
        WorkDirs.wipe(stackDir);
        Path workDir = Files.createDirectories(stackDir.resolve("quickstart"));
        out.printf("starting Kafka, Apicurio Registry and %s on 127.0.0.1 (in %s)...%n", s3, stackDir);
        // Detached: the stack outlives this command so trainers can read the dataset afterwards.
        LocalStack stack = LocalStack.start(StackConfig.defaults(stackDir).withS3Kind(S3Kind.parse(s3)).withDetached(true));
        try {
            StackEndpoints endpoints = StackEndpoints.of(stack);
            out.printf("  kafka %s | registry %s | s3 %s%n", endpoints.bootstrapServers(), endpoints.registryUrl(), endpoints.s3Endpoint());
            S3ObjectStore store = S3ObjectStore.connect(endpoints.s3Settings());
            new DatasetCatalog(store).create(LocalPipeline.imageSpec(DATASET, VERSION, "quickstart",
                    "synthetic 3x32x32 images with a class label"));
            out.printf("created dataset %s/%s: image float32 [3, 32, 32], label int64%n", DATASET, VERSION);

            try (LocalPipeline pipeline = LocalPipeline.start(endpoints, workDir, shardSamples, Duration.ofSeconds(2), "quickstart");
                 EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), "samples", Map.of())) {
                out.printf("started ingest-app (pid %d) and shard-sink (pid %d); logs in %s%n", pipeline.ingest().pid(), pipeline.sink().pid(), workDir);
                CommitLog log = new CommitLog(store, DATASET, VERSION, Clock.systemUTC());
                SyntheticSamples synthetic = new SyntheticSamples(DATASET, VERSION, "edge-cam-1", 3, 32, 10, 1);
                int perWave = Math.max(1, samples / waves);
                long published = 0;
                for (int wave = 1; wave <= waves; wave++) {
                    int count = wave == waves ? (int) (samples - published) : perWave;
                    PublishCommand.publish(publisher, synthetic, published, count);
                    published += count;
                    out.printf("wave %d: published %d samples (%d in all)%n", wave, count, published);
                    pipeline.awaitCommitted(log, published, Duration.ofSeconds(120), Duration.ofMillis(500), snapshot -> {
                        out.println("  " + SnapshotSummary.of(snapshot).line());
                        out.flush();
                    });
                }
                Snapshot last = log.latest();
                Path scratch = Files.createDirectories(workDir.resolve("verify"));
                SnapshotVerifier.VerificationReport report = new SnapshotVerifier(store, scratch).verify(last);
                long missing = 0;
                for (long n = 0; n < published; n++) {
                    if (!report.sampleIds().contains(synthetic.sampleId(n))) {
                        missing++;
                    }
                }
                boolean exact = report.ok() && missing == 0 && report.samples() == published;
                out.printf("quickstart %s: dataset %s/%s grew to %s in %d s; %d/%d published samples committed, "
                                + "%d missing, %d duplicated, %d checksum problems%n",
                        exact ? "OK" : "FAILED", DATASET, VERSION, SnapshotSummary.of(last).line(),
                        Duration.between(started, Instant.now()).toSeconds(), report.samples(), published, missing,
                        report.duplicateIds().size(), report.problems().size());
                report.problems().forEach(p -> out.println("  problem: " + p));
                if (keepRunning && exact) {
                    out.println("stack and services keep running; press Ctrl-C to stop");
                    Thread.currentThread().join();
                }
                return exact ? 0 : 1;
            }
        } finally {
            if (stop) {
                stack.close();
                LocalStack.down(stackDir);
            } else {
                out.printf("the stack keeps running (stop it with 'bin/shardflow stack down'); to read demo/v1 from Python "
                        + "(docs/training/index.md):%n  export SHARDFLOW_S3_ENDPOINT=%s SHARDFLOW_S3_ACCESS_KEY=%s "
                        + "SHARDFLOW_S3_SECRET_KEY_FILE=%s%n", stack.s3Endpoint(), stack.s3AccessKey(), stack.s3SecretKeyFile());
                out.printf("see it in the web console: run 'bin/shardflow ui' and open http://127.0.0.1:%d/datasets/%s/%s%n",
                        ConsoleSettings.DEFAULT_PORT, DATASET, VERSION);
            }
        }
    }
}
