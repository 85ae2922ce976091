package io.shardflow.dataset.log;

/**
 * Other committers kept winning the race for the next snapshot id. Nothing was written by this
 * call; retrying later is safe.
 */
public class CommitContentionException extends RuntimeException {

    public CommitContentionException(String dataset, String version, int attempts) {
        super("commit to " + dataset + "/" + version + " lost the race for the next snapshot id " + attempts
                + " times in a row; nothing was written, retry later");
    }
}
