package io.shardflow.cli.bench;

import java.util.List;

/** One figure of the suite (or two that share one measurement): measures on a stack and records its rows. */
public interface Figure {

    /** The ids ({@code --only}) this class measures; it runs when any of them is selected. */
    List<String> ids();

    /** Whether it runs on every S3 server of the run, or only on the first. */
    default boolean everyS3Server() {
        return false;
    }

    void run(BenchContext context) throws Exception;
}
