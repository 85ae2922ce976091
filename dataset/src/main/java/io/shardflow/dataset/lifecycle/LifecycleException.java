package io.shardflow.dataset.lifecycle;

/**
 * A lifecycle command refused what it was asked (a tag that exists, a delete that matches nothing,
 * an expire that would drop a tagged snapshot): the user's input, not an outage. Commands exit 1.
 */
public class LifecycleException extends RuntimeException {

    public LifecycleException(String message) {
        super(message);
    }
}
