package io.shardflow.cli;

import io.shardflow.dataset.log.RetentionPolicy;
import java.util.OptionalInt;
import picocli.CommandLine.Option;

/** {@code --keep-last N --keep-days T}: a retention policy given on the command line, shared by expire and retention. */
final class RetentionOptions {

    @Option(names = "--keep-last", paramLabel = "N", description = "keep the last N snapshots")
    Integer keepLast;
    @Option(names = "--keep-days", paramLabel = "T", description = "keep snapshots committed in the last T days")
    Integer keepDays;

    boolean given() {
        return keepLast != null || keepDays != null;
    }

    /** The policy given; call only when {@link #given()}. */
    RetentionPolicy policy() {
        return new RetentionPolicy(optional(keepLast), optional(keepDays));
    }

    private static OptionalInt optional(Integer value) {
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }
}
