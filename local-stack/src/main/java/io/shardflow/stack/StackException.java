package io.shardflow.stack;

/** A server did not start, did not become ready, or the stack's state could not be read or written. */
public final class StackException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StackException(String message) {
        super(message);
    }

    public StackException(String message, Throwable cause) {
        super(message, cause);
    }
}
