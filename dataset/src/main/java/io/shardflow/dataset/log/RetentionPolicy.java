package io.shardflow.dataset.log;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Which snapshots {@code dataset expire} keeps: the latest {@code keepLast}, those committed in the
 * last {@code keepDays} days, every tagged one, and always the latest. A snapshot matching either
 * rule is kept; a rule left unset keeps nothing by itself. Stored per version by a retention entry.
 */
public record RetentionPolicy(OptionalInt keepLast, OptionalInt keepDays) {

    /** Keeps only the latest (and tagged) snapshots. */
    public static final RetentionPolicy NONE = new RetentionPolicy(OptionalInt.empty(), OptionalInt.empty());

    public RetentionPolicy {
        if (keepLast.isPresent() && keepLast.getAsInt() < 1) {
            throw new IllegalArgumentException("keep-last must be >= 1, got " + keepLast.getAsInt());
        }
        if (keepDays.isPresent() && keepDays.getAsInt() < 0) {
            throw new IllegalArgumentException("keep-days must be >= 0, got " + keepDays.getAsInt());
        }
    }

    public boolean keeps(long snapshotId, long latestId, Instant committedAt, Instant now) {
        if (snapshotId == latestId) {
            return true;
        }
        boolean byCount = keepLast.isPresent() && snapshotId > latestId - keepLast.getAsInt();
        boolean byAge = keepDays.isPresent() && !committedAt.isBefore(now.minus(Duration.ofDays(keepDays.getAsInt())));
        return byCount || byAge;
    }

    /** The entry details of a retention entry. */
    public Map<String, String> toDetails() {
        Map<String, String> details = new LinkedHashMap<>();
        keepLast.ifPresent(n -> details.put("keepLast", Integer.toString(n)));
        keepDays.ifPresent(n -> details.put("keepDays", Integer.toString(n)));
        return details;
    }

    static RetentionPolicy fromDetails(Map<String, String> details) {
        return new RetentionPolicy(optionalInt(details.get("keepLast")), optionalInt(details.get("keepDays")));
    }

    private static OptionalInt optionalInt(String text) {
        return text == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(text));
    }

    @Override
    public String toString() {
        return "keep-last " + (keepLast.isPresent() ? keepLast.getAsInt() : "-") + ", keep-days "
                + (keepDays.isPresent() ? keepDays.getAsInt() : "-") + ", plus tagged and latest";
    }
}
