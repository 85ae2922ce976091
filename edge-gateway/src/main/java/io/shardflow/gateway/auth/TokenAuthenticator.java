package io.shardflow.gateway.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;

/**
 * Checks a device token against its record in the {@link TokenStore}. Lookups, found or not, are
 * kept for {@code cacheFor}, so a device sending many requests costs one object-store read per
 * period, and so does a flood of made-up ids (the cache is bounded); a revocation reaches this
 * gateway within that period. An object-store failure is not cached and propagates (503).
 */
public final class TokenAuthenticator {

    private final TokenStore store;
    private final Clock clock;
    private final Cache<String, Optional<TokenStore.Stored>> lookups;

    public TokenAuthenticator(TokenStore store, Clock clock, Duration cacheFor) {
        this.store = store;
        this.clock = clock;
        this.lookups = Caffeine.newBuilder().maximumSize(100_000).expireAfterWrite(cacheFor).executor(Runnable::run).build();
    }

    /** The device the token proves, or empty when it proves nothing (unknown, wrong secret, revoked, expired). */
    public Optional<DeviceIdentity> authenticate(String token) {
        Optional<TokenSecrets.Parsed> parsed = TokenSecrets.parse(token);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        Optional<TokenStore.Stored> stored = lookups.get(parsed.get().id(), store::find);
        if (stored.isEmpty() || stored.get().revoked()) {
            return Optional.empty();
        }
        DeviceToken record = stored.get().token();
        if (record.expiredAt(clock.instant()) || !TokenSecrets.matches(parsed.get().secret(), record.secretSha256())) {
            return Optional.empty();
        }
        return Optional.of(new DeviceIdentity(record.deviceId(), new HashSet<>(record.datasets()), "token", record.id(),
                record.requestsPerSecond(), record.bytesPerSecond()));
    }
}
