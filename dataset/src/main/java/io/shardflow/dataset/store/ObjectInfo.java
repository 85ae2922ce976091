package io.shardflow.dataset.store;

/** Metadata of a stored object. The etag is the server's, without quotes; do not read it as an MD5 (multipart etags are not). */
public record ObjectInfo(String key, long size, String etag) {
}
