package io.shardflow.gateway.config;

import java.time.Duration;

/**
 * The limits a request is held to, published in {@code /openapi.json} and in every 413 answer.
 *
 * @param maxRequestBytes  largest body
 * @param maxBatchSamples  most samples in one request
 * @param maxSampleBytes   largest tensor payload of one sample
 * @param produceTimeout   longest wait for the broker's acknowledgements
 * @param retryAfterSeconds Retry-After of a 503
 */
public record RequestLimits(long maxRequestBytes, int maxBatchSamples, long maxSampleBytes, Duration produceTimeout,
                            int retryAfterSeconds) {
}
