package io.shardflow.ingest.dedupe;

import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * Remembers the sample ids seen in the last {@code window} of record time, per dataset version.
 * Backed by a window store, so memory and disk stay bounded: old segments are dropped as stream
 * time moves on. Ids are only compared within one input partition, which is why producers key
 * records by sample id.
 */
public final class DuplicateFilter {

    private final WindowStore<String, Long> seen;
    private final Duration window;

    public DuplicateFilter(WindowStore<String, Long> seen, Duration window) {
        this.seen = seen;
        this.window = window;
    }

    /** Records the id and tells whether it had already been seen within the window. */
    public boolean isDuplicate(String dataset, String version, String sampleId, long recordTimestamp) {
        String key = dataset + '\u0000' + version + '\u0000' + sampleId;
        Instant from = Instant.ofEpochMilli(Math.max(0, recordTimestamp - window.toMillis()));
        Instant to = Instant.ofEpochMilli(recordTimestamp + window.toMillis());
        try (WindowStoreIterator<Long> hits = seen.backwardFetch(key, from, to)) {
            if (hits.hasNext()) {
                return true;
            }
        }
        seen.put(key, recordTimestamp, recordTimestamp);
        return false;
    }
}
