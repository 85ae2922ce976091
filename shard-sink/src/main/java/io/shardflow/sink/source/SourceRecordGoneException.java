package io.shardflow.sink.source;

/**
 * A record a shard's decisions name is not in the samples topic (deleted by retention, beyond the end
 * of a recreated topic, or no longer a sample): the shard can never be built and is quarantined.
 */
public final class SourceRecordGoneException extends RuntimeException {

    public SourceRecordGoneException(String message) {
        super(message);
    }
}
