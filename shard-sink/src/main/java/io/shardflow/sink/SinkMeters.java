package io.shardflow.sink;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardflow.sink.compaction.CompactionMetrics;
import io.shardflow.sink.quarantine.QuarantineMetrics;

/**
 * Every meter shard-sink registers itself, registered at start in one place: the service does it
 * through {@link #register}, and so do the generated metrics reference and the monitoring kit's checks,
 * so what they list is what the service serves. A new meter class belongs here.
 */
public final class SinkMeters {

    final SinkMetrics sink;

    /** The quarantine and compaction classes register the same meters again when they start: a registry keeps one of each. */
    private SinkMeters(MeterRegistry registry) {
        sink = new SinkMetrics(registry);
        new QuarantineMetrics(registry);
        // also when compaction is off: its counters then read 0 instead of missing
        new CompactionMetrics(registry);
    }

    public static SinkMeters register(MeterRegistry registry) {
        return new SinkMeters(registry);
    }
}
