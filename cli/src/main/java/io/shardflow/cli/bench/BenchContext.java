package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackEndpoints;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;

/**
 * What a figure needs from the run: the stack it measures on, clients to it, the options, where
 * to keep files, where progress goes, and where results go.
 */
public record BenchContext(StackEndpoints endpoints, S3Kind s3Kind, Admin admin, S3ObjectStore store, BenchOptions options,
                           Path workDir, PrintWriter progressOut, BenchRecorder recorder, Clock clock, Map<String, Long> serverPids) {

    /** Role of the broker's process in {@link #serverPids}. */
    public static final String BROKER = "broker";
    /** Role of the schema registry's process. */
    public static final String REGISTRY = "registry";
    /** Role of the S3 server's process. */
    public static final String S3_SERVER = "S3 server";

    /** A CPU meter over the stack's servers and this JVM; figures add their services' roles. */
    public CpuMeter cpuMeter() {
        CpuMeter meter = new CpuMeter();
        serverPids.forEach(meter::role);
        return meter.role(CpuMeter.BENCH_JVM, ProcessHandle.current().pid());
    }

    public String s3() {
        return s3Kind.name().toLowerCase(Locale.ROOT);
    }

    public Progress progress(String task, String unit, long total) {
        return Progress.start(progressOut, task, unit, total);
    }

    /** Prints one line of what the suite is doing now. */
    public void say(String format, Object... arguments) {
        progressOut.printf(Locale.ROOT, "bench: " + format + "%n", arguments);
        progressOut.flush();
    }

    /** A fresh case: its topics and its dataset (with the spec of {@code shape}) created. */
    public BenchCase newCase(String name, int partitions, SampleShape shape) throws ExecutionException, InterruptedException {
        BenchCase benchCase = new BenchCase(name + "-" + s3(), partitions);
        benchCase.createTopics(admin);
        new DatasetCatalog(store).create(shape.spec(benchCase.dataset(), BenchCase.VERSION));
        return benchCase;
    }

    public CommitLog commitLog(BenchCase benchCase) {
        return new CommitLog(store, benchCase.dataset(), BenchCase.VERSION, clock);
    }

    public Path caseDir(BenchCase benchCase) {
        return workDir.resolve(benchCase.name());
    }
}
