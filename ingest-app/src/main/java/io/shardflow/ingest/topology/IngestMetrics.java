package io.shardflow.ingest.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardflow.app.validate.RejectReason;
import io.shardflow.schemas.internal.SealReason;
import java.util.EnumMap;
import java.util.Map;

/** The counters ingest-app exposes; names follow Micrometer's dotted convention. */
public final class IngestMetrics {

    private final Counter accepted;
    private final Counter acceptedBytes;
    private final Map<RejectReason, Counter> rejected = new EnumMap<>(RejectReason.class);
    private final Map<SealReason, Counter> sealed = new EnumMap<>(SealReason.class);

    /**
     * Registers every counter, each reason included, at once: a dashboard or an alert sees a series at
     * zero from the start instead of one that appears only after the first dead letter.
     */
    public IngestMetrics(MeterRegistry registry) {
        accepted = Counter.builder("shardflow.ingest.samples.accepted")
                .description("samples validated and assigned to a shard").register(registry);
        acceptedBytes = Counter.builder("shardflow.ingest.samples.accepted.bytes")
                .description("tensor payload bytes of the accepted samples").register(registry);
        for (RejectReason reason : RejectReason.values()) {
            rejected.put(reason, Counter.builder("shardflow.ingest.samples.rejected").tag("reason", reason.name())
                    .description("records dead-lettered to the dead-letter topic, by reason code (the shardflow.dlq.reason header)")
                    .register(registry));
        }
        for (SealReason reason : SealReason.values()) {
            sealed.put(reason, Counter.builder("shardflow.ingest.shards.sealed").tag("reason", reason.name())
                    .description("shards sealed, by the limit that sealed them (COUNT, BYTES or AGE)").register(registry));
        }
    }

    void accepted(long payloadBytes) {
        accepted.increment();
        acceptedBytes.increment(payloadBytes);
    }

    void rejected(RejectReason reason) {
        rejected.get(reason).increment();
    }

    void sealed(SealReason reason) {
        sealed.get(reason).increment();
    }
}
