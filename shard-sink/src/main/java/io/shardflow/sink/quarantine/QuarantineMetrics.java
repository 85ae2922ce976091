package io.shardflow.sink.quarantine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** What quarantine set aside: every shard, and among them those whose samples were gone from the topic. */
public final class QuarantineMetrics {

    final Counter quarantined;
    final Counter sourceGone;

    public QuarantineMetrics(MeterRegistry registry) {
        quarantined = Counter.builder("shardflow.sink.shards.quarantined")
                .description("sealed shards that could not be built and were set aside with a durable record (dataset quarantine)")
                .register(registry);
        sourceGone = Counter.builder("shardflow.sink.shards.source.gone")
                .description("quarantined shards whose samples were no longer in the samples topic (retention shorter than the"
                        + " sink's lag): their samples are lost")
                .register(registry);
    }
}
