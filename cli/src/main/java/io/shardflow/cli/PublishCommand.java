package io.shardflow.cli;

import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "publish", description = "Publish synthetic samples (float32 image + int64 label) as an edge device would.")
final class PublishCommand implements Callable<Integer> {

    @Mixin
    Endpoints endpoints;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Option(names = "--dataset", required = true)
    String dataset;
    @Option(names = "--version", required = true)
    String version;
    @Option(names = "--count", defaultValue = "1000")
    long count;
    @Option(names = "--first", defaultValue = "0", description = "number of the first sample (sample ids derive from it)")
    long first;
    @Option(names = "--device", defaultValue = "edge-cam-1")
    String device;
    @Option(names = "--channels", defaultValue = "3")
    int channels;
    @Option(names = "--size", defaultValue = "32")
    int size;
    @Option(names = "--classes", defaultValue = "10")
    int classes;
    @Option(names = "--seed", defaultValue = "1")
    long seed;
    @Option(names = "--topic", defaultValue = "samples")
    String topic;

    @Override
    public Integer call() throws Exception {
        SyntheticSamples samples = new SyntheticSamples(dataset, version, device, channels, size, classes, seed);
        long started = System.nanoTime();
        try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), topic,
                endpoints.kafkaClientSettings())) {
            publish(publisher, samples, first, count);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        command.commandLine().getOut().printf("published %d samples to %s in %.1f s (%.0f samples/s)%n",
                count, topic, seconds, count / seconds);
        return 0;
    }

    /** Publishes samples {@code first .. first+count-1}, at most 10,000 unacknowledged; fails on the first send error. */
    static void publish(EdgePublisher publisher, SyntheticSamples samples, long first, long count) throws Exception {
        Semaphore inFlight = new Semaphore(10_000);
        CompletableFuture<?>[] failure = new CompletableFuture<?>[] {new CompletableFuture<Void>()};
        for (long n = first; n < first + count; n++) {
            inFlight.acquire();
            publisher.publish(samples.sample(n, Instant.now())).whenComplete((metadata, error) -> {
                inFlight.release();
                if (error != null) {
                    failure[0].completeExceptionally(error);
                }
            });
            if (failure[0].isCompletedExceptionally()) {
                failure[0].join();
            }
        }
        publisher.flush();
        inFlight.acquire(10_000);
        if (failure[0].isCompletedExceptionally()) {
            failure[0].join();
        }
    }
}
