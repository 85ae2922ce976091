package io.shardflow.gateway.parse;

import io.shardflow.schemas.Sample;

/**
 * One sample as the request gave it, its device id already the authenticated one.
 *
 * @param claimedDeviceId the device id the body named, or null when it named none; a different one
 *                        than the authenticated device is refused (a device cannot write as another)
 */
public record ParsedSample(Sample sample, String claimedDeviceId) {
}
