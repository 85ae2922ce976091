package io.shardflow.stack;

import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.ingest.IngestApp;
import io.shardflow.sink.ShardSinkApp;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * One ingest-app and one shard-sink, each its own JVM, pointed at a stack: the pipeline the
 * quickstart and the benchmark run.
 */
public final class LocalPipeline implements AutoCloseable {

    private final ServiceProcess ingest;
    private final ServiceProcess sink;

    private LocalPipeline(ServiceProcess ingest, ServiceProcess sink) {
        this.ingest = ingest;
        this.sink = sink;
    }

    public static LocalPipeline start(StackEndpoints endpoints, Path workDir, int shardSamples, Duration maxShardAge, String name) {
        ServiceProcess ingest = ServiceProcess.start("ingest-app", IngestApp.class.getName(),
                PipelineSettings.ingest(endpoints, shardSamples, 64L << 20, maxShardAge, workDir.resolve("ingest-state")),
                workDir.resolve("ingest"));
        try {
            ServiceProcess sink = ServiceProcess.start("shard-sink", ShardSinkApp.class.getName(),
                    PipelineSettings.sink(endpoints, workDir.resolve("sink-spool"), name + "-sink"), workDir.resolve("sink"));
            return new LocalPipeline(ingest, sink);
        } catch (RuntimeException e) {
            ingest.close();
            throw e;
        }
    }

    /** The demo layout: a float32 3x32x32 image and an int64 class label. */
    public static DatasetSpec imageSpec(String dataset, String version, String author, String description) {
        return new DatasetSpec(dataset, version, List.of(TensorSpec.parse("image:float32:3x32x32"), TensorSpec.parse("label:int64")),
                "label", author, description, 0, false, Instant.now());
    }

    public ServiceProcess ingest() {
        return ingest;
    }

    public ServiceProcess sink() {
        return sink;
    }

    /**
     * Waits until the latest snapshot holds {@code expected} samples, handing each new snapshot to
     * {@code onNewSnapshot}; fails early, with the service's log, if a service died.
     */
    public Snapshot awaitCommitted(CommitLog log, long expected, Duration timeout, Duration poll, Consumer<Snapshot> onNewSnapshot)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long shown = -1;
        while (true) {
            Snapshot latest = log.latest();
            if (latest.snapshotId() != shown) {
                onNewSnapshot.accept(latest);
                shown = latest.snapshotId();
            }
            if (latest.sampleCount() >= expected) {
                return latest;
            }
            ingest.requireAlive();
            sink.requireAlive();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + latest.sampleCount() + " of " + expected + " samples were committed within "
                        + timeout.toSeconds() + " s; see " + ingest.log() + " and " + sink.log());
            }
            Thread.sleep(poll.toMillis());
        }
    }

    @Override
    public void close() {
        try {
            sink.close();
        } finally {
            ingest.close();
        }
    }
}
