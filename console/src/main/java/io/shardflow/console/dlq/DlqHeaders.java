package io.shardflow.console.dlq;

import java.util.Set;

/**
 * The header names ingest-app's dead letters carry (its {@code DeadLetters} class; a test checks they
 * are the same), and those a redrive adds. They are part of the public contract of the dead-letter topic.
 */
public final class DlqHeaders {

    public static final String REASON = "shardflow.dlq.reason";
    public static final String DETAIL = "shardflow.dlq.detail";
    public static final String SOURCE = "shardflow.dlq.source";
    public static final String DROPPED = "shardflow.dlq.dropped";
    /** On a redriven record: the dead letter it came from ({@code samples-dlq/0/42}). */
    public static final String REDRIVEN_FROM = "shardflow.redrive.from";
    /** On a redriven record: who redrove it. */
    public static final String REDRIVEN_BY = "shardflow.redrive.by";

    public static final Set<String> OURS = Set.of(REASON, DETAIL, SOURCE, DROPPED, REDRIVEN_FROM, REDRIVEN_BY);

    private DlqHeaders() {
    }
}
