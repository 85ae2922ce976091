package io.shardflow.dataset.store;

/** The object asked for does not exist. */
public class ObjectNotFoundException extends ObjectStoreException {

    public ObjectNotFoundException(String operation, String key) {
        super(operation, key, "no such object");
    }
}
