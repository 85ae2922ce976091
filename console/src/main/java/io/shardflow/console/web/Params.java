package io.shardflow.console.web;

import io.javalin.http.Context;
import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.Names;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/**
 * Every name that arrives in a URL is checked here before anything uses it: dataset and version by
 * the format's naming rule (no '/', no leading dot, so no way out of {@code datasets/<d>/<v>/}), lane
 * and shard segments by their fixed form, numbers as numbers. A bad value is a 400 with the rule; the
 * value is then only used to look things up in the log, never to build an object key by hand.
 */
public final class Params {

    private static final Pattern LANE = Pattern.compile("lane-(\\d{5})");
    private static final Pattern SHARD = Pattern.compile("shard-(\\d{12,15})");
    private static final Pattern TENSOR = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    private Params() {
    }

    /** Thrown for a malformed URL part; answered with 400. */
    public static final class BadRequest extends RuntimeException {
        public BadRequest(String message) {
            super(message);
        }
    }

    public static VersionKey version(Context ctx) {
        return new VersionKey(name(ctx.pathParam("dataset"), "dataset name"), name(ctx.pathParam("version"), "dataset version"));
    }

    public static String name(String value, String what) {
        try {
            return Names.requireDatasetName(what, value);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    public static ShardId shard(Context ctx, VersionKey version) {
        var lane = LANE.matcher(ctx.pathParam("lane"));
        var shard = SHARD.matcher(ctx.pathParam("shard"));
        if (!lane.matches() || !shard.matches()) {
            throw new BadRequest("a shard is addressed as lane-NNNNN/shard-NNNNNNNNNNNN");
        }
        try {
            return new ShardId(version.dataset(), version.version(), Integer.parseInt(lane.group(1)), Long.parseLong(shard.group(1)));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    public static String tensor(String value) {
        if (value == null || !TENSOR.matcher(value).matches()) {
            throw new BadRequest("tensor names are letters, digits and '_'");
        }
        return value;
    }

    /** A non-negative number from a path or query value; {@code fallback} when absent. */
    public static long number(String value, String what, long fallback) {
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            long n = Long.parseLong(value);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new BadRequest(what + " must be a non-negative whole number");
        }
    }

    /** A time filter: epoch milliseconds or an ISO-8601 instant ({@code 2026-03-01T12:00:00Z}); null when absent. */
    public static Long time(String value, String what) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        if (v.chars().allMatch(Character::isDigit) && v.length() <= 15) {
            return Long.parseLong(v);
        }
        try {
            return Instant.parse(v).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new BadRequest(what + " must be epoch milliseconds or an ISO-8601 instant such as 2026-03-01T12:00:00Z");
        }
    }

    /** A free-text filter value (a label, a device id): any text, at most 512 characters; it is only compared. */
    public static String text(String value, String what) {
        if (value != null && value.length() > 512) {
            throw new BadRequest(what + " is longer than 512 characters");
        }
        return value;
    }
}
