package io.shardflow.gateway.auth;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.shardflow.dataset.spec.Names;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import io.shardflow.gateway.config.QuotaSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Device tokens in the object store, beside the datasets, so every gateway instance sees the same
 * ones without a database: {@code gateway/tokens/<id>.json} holds a {@link DeviceToken} (the
 * secret's hash only) and {@code gateway/revoked/<id>.json} marks it revoked. Both are written
 * create-only, like everything else in the bucket (docs/ARCHITECTURE.md, invariant 3): a token is
 * never edited, a revocation never undone, and the records stay as an audit trail.
 */
public final class TokenStore {

    public static final String TOKENS = "gateway/tokens/";
    public static final String REVOKED = "gateway/revoked/";
    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT);

    private final ObjectStore store;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public TokenStore(ObjectStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** A token and whether it has been revoked. */
    public record Stored(DeviceToken token, boolean revoked) {
    }

    /** A newly issued token: {@link #token} is shown once and never stored. */
    public record Issued(String token, DeviceToken record) {
        @Override
        public String toString() {
            return "Issued[" + record + "]";
        }
    }

    /**
     * Issues a token for {@code deviceId}, allowed to write {@code datasets} ({@code *} for all).
     *
     * @param lifetime null: the token does not expire
     */
    public Issued create(String deviceId, List<String> datasets, Duration lifetime, Double requestsPerSecond, Long bytesPerSecond,
                         String description) {
        if (deviceId == null || deviceId.isBlank() || deviceId.length() > 256 || deviceId.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("device id must be 1..256 characters without control characters");
        }
        if (requestsPerSecond != null && !(requestsPerSecond >= 0.001 && requestsPerSecond <= QuotaSettings.MAX_REQUESTS_PER_SECOND)) {
            throw new IllegalArgumentException("requests per second must be within 0.001.." + QuotaSettings.MAX_REQUESTS_PER_SECOND);
        }
        if (bytesPerSecond != null && (bytesPerSecond < 1 || bytesPerSecond > QuotaSettings.MAX_BYTES_PER_SECOND)) {
            throw new IllegalArgumentException("bytes per second must be within 1.." + QuotaSettings.MAX_BYTES_PER_SECOND);
        }
        if (datasets.isEmpty()) {
            throw new IllegalArgumentException("a token needs at least one dataset (or * for all)");
        }
        for (String dataset : datasets) {
            if (!dataset.equals(DeviceToken.ALL_DATASETS) && !Names.DATASET_NAME.matcher(dataset).matches()) {
                throw new IllegalArgumentException("'" + dataset + "' is not a dataset name (" + Names.DATASET_NAME.pattern() + ") or *");
            }
        }
        Instant now = clock.instant();
        String secret = TokenSecrets.newSecret(random);
        while (true) {
            String id = TokenSecrets.newId(random);
            DeviceToken record = new DeviceToken(DeviceToken.FORMAT_VERSION, id, deviceId, datasets, TokenSecrets.sha256(secret), now,
                    lifetime == null ? null : now.plus(lifetime), requestsPerSecond, bytesPerSecond, description);
            if (store.putIfAbsent(TOKENS + id + ".json", write(record)) == PutOutcome.CREATED) {
                return new Issued(TokenSecrets.format(id, secret), record);
            }
            // 80 random bits already taken: astronomically unlikely, but create-only lets us just draw again
        }
    }

    /** Marks the token revoked; true when this call revoked it, false when it already was. */
    public boolean revoke(String id, String reason) {
        if (find(id).isEmpty()) {
            throw new IllegalArgumentException("no token with id " + id);
        }
        byte[] marker = write(Map.of("id", id, "revokedAt", clock.instant().toString(), "reason", reason == null ? "" : reason));
        return store.putIfAbsent(REVOKED + id + ".json", marker) == PutOutcome.CREATED;
    }

    /** The token with this id; empty when there is none (or the id could not be a token's). */
    public Optional<Stored> find(String id) {
        if (!id.matches("[a-z2-7]{16}")) {
            return Optional.empty();
        }
        return store.get(TOKENS + id + ".json").map(bytes -> new Stored(read(bytes), store.head(REVOKED + id + ".json").isPresent()));
    }

    /** Every token, in id order. */
    public List<Stored> list() {
        List<Stored> all = new ArrayList<>();
        String after = null;
        while (true) {
            List<String> keys = store.list(TOKENS, after, 1000);
            for (String key : keys) {
                String id = key.substring(TOKENS.length(), key.length() - ".json".length());
                find(id).ifPresent(all::add);
            }
            if (keys.size() < 1000) {
                return all;
            }
            after = keys.get(keys.size() - 1);
        }
    }

    private static byte[] write(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static DeviceToken read(byte[] bytes) {
        try {
            return JSON.readValue(bytes, DeviceToken.class);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable device token record", e);
        }
    }
}
