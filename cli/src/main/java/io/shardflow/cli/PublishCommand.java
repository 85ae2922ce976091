package io.shardflow.cli;

import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "publish", versionProvider = VersionProvider.class,
        description = "Publish synthetic samples (float32 image + int64 label) as an edge device would. Progress goes to "
                + "stderr: a bar on a terminal, a line every 5 s or 10%% otherwise.",
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow publish --dataset cams --version v1 --count 1000",
                "  bin/shardflow publish --dataset cams --version v1 --count 5000 --first 1000 --json"})
public final class PublishCommand implements Callable<Integer> {

    @Mixin
    HelpOnlyOptions help;
    @Mixin
    Endpoints endpoints;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Option(names = "--dataset", required = true, description = "dataset name the samples are for (created with 'dataset create')")
    String dataset;
    @Option(names = "--version", required = true, description = "dataset version the samples are for")
    String version;
    @Option(names = "--count", defaultValue = "1000", description = "samples to publish (default: ${DEFAULT-VALUE})")
    long count;
    @Option(names = "--first", defaultValue = "0", description = "number of the first sample; sample ids derive from it (default: ${DEFAULT-VALUE})")
    long first;
    @Option(names = "--device", defaultValue = "edge-cam-1", description = "device id in each sample (default: ${DEFAULT-VALUE})")
    String device;
    @Option(names = "--channels", defaultValue = "3", description = "image channels (default: ${DEFAULT-VALUE})")
    int channels;
    @Option(names = "--size", defaultValue = "32", description = "image height and width (default: ${DEFAULT-VALUE})")
    int size;
    @Option(names = "--classes", defaultValue = "10", description = "label values 0..N-1 (default: ${DEFAULT-VALUE})")
    int classes;
    @Option(names = "--seed", defaultValue = "1", description = "seed of the pixel values and labels (default: ${DEFAULT-VALUE})")
    long seed;
    @Option(names = "--topic", defaultValue = "samples", description = "topic to publish to (default: ${DEFAULT-VALUE})")
    String topic;
    @Option(names = "--json", description = "print {topic, samples, seconds, samplesPerSecond} at the end")
    boolean json;

    @Override
    public Integer call() throws Exception {
        SyntheticSamples samples = new SyntheticSamples(dataset, version, device, channels, size, classes, seed);
        long started = System.nanoTime();
        try (EdgePublisher publisher = EdgePublisher.create(endpoints.bootstrapServers(), endpoints.registryUrl(), topic,
                endpoints.kafkaClientSettings());
             Progress progress = Progress.start(command.commandLine().getErr(), "publish", "samples", count)) {
            publish(publisher, samples, first, count, progress);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        PrintWriter out = command.commandLine().getOut();
        if (json) {
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("topic", topic);
            view.put("samples", count);
            view.put("seconds", seconds);
            view.put("samplesPerSecond", count / seconds);
            out.println(JsonOutput.write(view));
        } else {
            out.printf("published %d samples to %s in %.1f s (%.0f samples/s)%n", count, topic, seconds, count / seconds);
        }
        return 0;
    }

    public static void publish(EdgePublisher publisher, SyntheticSamples samples, long first, long count) throws Exception {
        publish(publisher, samples, first, count, Progress.silent());
    }

    /**
     * Publishes samples {@code first .. first+count-1}, at most 10,000 unacknowledged; fails on the
     * first send error. Each acknowledgement advances {@code progress}.
     */
    public static void publish(EdgePublisher publisher, SyntheticSamples samples, long first, long count, Progress progress) throws Exception {
        Semaphore inFlight = new Semaphore(10_000);
        CompletableFuture<?>[] failure = new CompletableFuture<?>[] {new CompletableFuture<Void>()};
        for (long n = first; n < first + count; n++) {
            inFlight.acquire();
            publisher.publish(samples.sample(n, Instant.now())).whenComplete((metadata, error) -> {
                inFlight.release();
                if (error == null) {
                    progress.advance(1);
                } else {
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
