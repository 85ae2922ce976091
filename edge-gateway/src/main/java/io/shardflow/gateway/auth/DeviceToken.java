package io.shardflow.gateway.auth;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A device token as stored in the object store ({@code gateway/tokens/<id>.json}): who it is for,
 * what it may write, its own rate limits, and the SHA-256 of its secret, never the secret.
 *
 * @param datasets          the datasets the device may write to; {@code ["*"]} for all
 * @param expiresAt         null: no expiry
 * @param requestsPerSecond null: the gateway's default quota
 * @param bytesPerSecond    null: the gateway's default quota
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeviceToken(int formatVersion, String id, String deviceId, List<String> datasets, String secretSha256, Instant createdAt,
                          Instant expiresAt, Double requestsPerSecond, Long bytesPerSecond, String description) {

    public static final int FORMAT_VERSION = 1;
    public static final String ALL_DATASETS = "*";

    public DeviceToken {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(deviceId, "deviceId");
        Objects.requireNonNull(secretSha256, "secretSha256");
        datasets = List.copyOf(datasets == null ? List.of() : datasets);
    }

    public boolean expiredAt(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    /** Never prints the hash. */
    @Override
    public String toString() {
        return "DeviceToken[id=" + id + ", device=" + deviceId + ", datasets=" + datasets + "]";
    }
}
