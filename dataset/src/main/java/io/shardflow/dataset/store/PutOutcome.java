package io.shardflow.dataset.store;

/** Result of a create-only write. */
public enum PutOutcome {
    /** This call created the object. */
    CREATED,
    /** An object with that key already existed; it was left untouched and may hold different bytes. */
    ALREADY_EXISTS
}
