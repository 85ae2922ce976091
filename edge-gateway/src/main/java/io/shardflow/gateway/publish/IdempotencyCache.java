package io.shardflow.gateway.publish;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.Optional;

/**
 * Answers kept for requests sent with an {@code Idempotency-Key}, per device, so a client that
 * retries after a timeout gets the first answer again instead of a second produce. Only final
 * answers are kept (2xx and 4xx but 409 and 429): a 503 means "try again", so its retry must run.
 * Bounded by bytes and age; in this instance's memory only, which is enough because the sample ids
 * are what prevents duplicates in the dataset (ingest-app's dedupe): this cache saves the broker
 * and the client the repeat, it is not what makes retries safe.
 */
public final class IdempotencyCache {

    /** A request's answer, or the marker of one still running. */
    public record Answer(String fingerprint, boolean inProgress, int status, String contentType, byte[] body) {
        static Answer running(String fingerprint) {
            return new Answer(fingerprint, true, 0, null, new byte[0]);
        }
    }

    private final Cache<String, Answer> answers;

    public IdempotencyCache(Duration ttl, long maxBytes) {
        this.answers = Caffeine.newBuilder().expireAfterWrite(ttl).maximumWeight(maxBytes)
                .weigher((String key, Answer answer) -> key.length() * 2 + answer.body().length + 128).executor(Runnable::run).build();
    }

    /**
     * Claims {@code key} for a request whose content hashes to {@code fingerprint}: empty when this
     * request should run, else the answer (or running marker) already there.
     */
    public Optional<Answer> claim(String key, String fingerprint) {
        Answer existing = answers.asMap().putIfAbsent(key, Answer.running(fingerprint));
        return Optional.ofNullable(existing);
    }

    public void complete(String key, String fingerprint, int status, String contentType, byte[] body) {
        if (status == 409 || status == 429 || status >= 500) {
            answers.invalidate(key);
        } else {
            answers.put(key, new Answer(fingerprint, false, status, contentType, body));
        }
    }

    /** Forgets a claim whose request ended without an answer worth keeping. */
    public void abandon(String key) {
        answers.asMap().computeIfPresent(key, (k, answer) -> answer.inProgress() ? null : answer);
    }
}
