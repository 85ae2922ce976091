package io.shardflow.cli.bench;

import io.shardflow.cli.Progress;
import io.shardflow.cli.PublishCommand;
import io.shardflow.edge.EdgePublisher;
import io.shardflow.edge.SyntheticSamples;
import java.util.Map;

/** Publishes a case's synthetic samples the way a device does (edge-client, Apicurio serde). */
public final class Publishing implements AutoCloseable {

    private final EdgePublisher publisher;
    private final SyntheticSamples samples;

    public Publishing(BenchContext context, String topic, SyntheticSamples samples) {
        this.publisher = EdgePublisher.create(context.endpoints().bootstrapServers(), context.endpoints().registryUrl(), topic, Map.of());
        this.samples = samples;
    }

    /** Samples {@code first .. first+count-1}; returns once every one is acknowledged. */
    public void publish(long first, long count, Progress progress) throws Exception {
        PublishCommand.publish(publisher, samples, first, count, progress);
    }

    /** One sample now, acknowledged before it returns: for paced publishing. */
    public void publishOne(long n) throws Exception {
        publish(n, 1, Progress.silent());
    }

    @Override
    public void close() {
        publisher.close();
    }
}
