package io.shardflow.dataset.store;

import java.time.Instant;

/** One object of a listing with its size and the server's last-modified time. */
public record StoredObject(String key, long size, Instant lastModified) {
}
