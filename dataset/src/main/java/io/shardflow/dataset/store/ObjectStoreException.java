package io.shardflow.dataset.store;

/** An object-store operation failed. The message names the operation and the key. */
public class ObjectStoreException extends RuntimeException {

    private final String operation;
    private final String key;

    public ObjectStoreException(String operation, String key, String detail, Throwable cause) {
        super(operation + " of '" + key + "' failed: " + detail, cause);
        this.operation = operation;
        this.key = key;
    }

    public ObjectStoreException(String operation, String key, String detail) {
        this(operation, key, detail, null);
    }

    public String operation() {
        return operation;
    }

    public String key() {
        return key;
    }
}
