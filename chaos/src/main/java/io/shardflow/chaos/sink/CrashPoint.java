package io.shardflow.chaos.sink;

import io.shardflow.sink.SinkHook;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * FAULT INJECTION: the named windows of the sink's commit protocol where the chaos harness makes a
 * shard-sink process crash (or freeze) on purpose. Each is a place where a real crash must not lose
 * or double a sample.
 */
public enum CrashPoint {
    /** A record was appended to an open shard's spool; its offset is not consumed yet. */
    MID_SPOOL,
    /** A sealed shard's HDF5 file is built on local disk, nothing is uploaded. */
    BEFORE_UPLOAD,
    /** While the shard object's PUT is on the wire: the server may or may not have stored it. */
    MID_UPLOAD,
    /** Every shard of a commit is uploaded; the commit-log entry is not written. */
    AFTER_UPLOAD,
    /** The commit-log entry is durable; the consumer offsets are not committed. */
    AFTER_COMMIT;

    /** The name used in settings, e.g. {@code after-upload}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The point just after the sink passed {@code step}; {@link #MID_UPLOAD} has no step, it is timed inside the PUT. */
    public static CrashPoint after(SinkHook.Step step) {
        return switch (step) {
            case RECORD_SPOOLED -> MID_SPOOL;
            case SHARD_BUILT -> BEFORE_UPLOAD;
            case SHARDS_UPLOADED -> AFTER_UPLOAD;
            case COMMIT_WRITTEN -> AFTER_COMMIT;
        };
    }

    public static CrashPoint parse(String id) {
        for (CrashPoint point : values()) {
            if (point.id().equals(id.trim())) {
                return point;
            }
        }
        throw new IllegalArgumentException("unknown crash point '" + id.trim() + "'; known: " + ids());
    }

    public static String ids() {
        return Arrays.stream(values()).map(CrashPoint::id).collect(Collectors.joining(", "));
    }
}
