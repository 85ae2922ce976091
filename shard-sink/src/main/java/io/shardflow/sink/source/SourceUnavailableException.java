package io.shardflow.sink.source;

/**
 * The samples topic or the schema registry did not answer while reading a shard's samples: an
 * outage, retried with backpressure like an object-store outage, never a reason to quarantine.
 */
public final class SourceUnavailableException extends RuntimeException {

    public SourceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
