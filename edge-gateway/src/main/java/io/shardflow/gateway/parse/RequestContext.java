package io.shardflow.gateway.parse;

import java.time.Instant;

/**
 * What every sample of a request gets from outside its body: the dataset version from the path,
 * the authenticated device, and the time to stamp when a sample gives no {@code produced_at}.
 */
public record RequestContext(String dataset, String version, String deviceId, Instant receivedAt, int maxSamples) {
}
