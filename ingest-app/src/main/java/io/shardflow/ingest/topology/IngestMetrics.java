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

    public IngestMetrics(MeterRegistry registry) {
        accepted = registry.counter("shardflow.ingest.samples.accepted");
        acceptedBytes = registry.counter("shardflow.ingest.samples.accepted.bytes");
        for (RejectReason reason : RejectReason.values()) {
            rejected.put(reason, registry.counter("shardflow.ingest.samples.rejected", "reason", reason.name()));
        }
        for (SealReason reason : SealReason.values()) {
            sealed.put(reason, registry.counter("shardflow.ingest.shards.sealed", "reason", reason.name()));
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
