package io.shardflow.edge.queue;

/** A queue file is not in the format this client writes, or the queue is in use or full. */
public class QueueException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public QueueException(String message) {
        super(message);
    }

    public QueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
