package io.shardflow.console.dlq;

import java.time.Instant;
import java.util.Map;

/**
 * One record of the dead-letter topic as ingest-app wrote it: the refused record's key, value and
 * headers untouched, plus the reason headers (docs/ARCHITECTURE.md invariant 6).
 *
 * @param value   the original bytes, or null when they were too big for the dead-letter topic ({@code dropped} says so)
 * @param headers the original record's own headers (without the {@code shardflow.dlq.*} ones)
 */
public record DeadLetter(String topic, int partition, long offset, Instant timestamp, String reason, String detail,
                         String source, String dropped, byte[] key, byte[] value, Map<String, byte[]> headers) {

    public DeadLetter {
        headers = Map.copyOf(headers);
    }

    /** {@code samples-dlq/0/42}: how the console and the redrive audit name a dead letter. */
    public String address() {
        return topic + "/" + partition + "/" + offset;
    }
}
