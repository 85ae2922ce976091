package io.shardflow.gateway.auth;

import java.util.Set;

/**
 * Who sent a request, as proven by its credentials: the device id stamped into every sample it
 * sends, the datasets it may write, and its own rate limits where its token sets them.
 *
 * @param via               {@code token} or {@code jwt}
 * @param credentialId      the token id, or the JWT's {@code jti} (empty when it has none)
 * @param requestsPerSecond null: the gateway's default
 * @param bytesPerSecond    null: the gateway's default
 */
public record DeviceIdentity(String deviceId, Set<String> datasets, String via, String credentialId, Double requestsPerSecond,
                             Long bytesPerSecond) {

    public DeviceIdentity {
        datasets = Set.copyOf(datasets);
    }

    public boolean mayWrite(String dataset) {
        return datasets.contains(DeviceToken.ALL_DATASETS) || datasets.contains(dataset);
    }
}
