package io.shardflow.ingest.validate;

/**
 * The schema registry could not be reached. The record is not at fault, so it must not go to the
 * dead-letter topic: the stream task fails and is retried from its last committed position.
 */
public final class RegistryUnavailableException extends RuntimeException {

    public RegistryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
