package io.shardflow.cli;

import io.shardflow.chaos.ChaosProgress;

/**
 * Shows a chaos run's stages as {@link Progress}, one after the other: a bar on a terminal,
 * plain periodic lines in a pipe or a CI log.
 */
final class ChaosProgressLines implements ChaosProgress {

    /** Opens the progress of one stage: (task, unit) and total. */
    interface Opener {
        Progress open(String task, String unit, long total);
    }

    private final Opener opener;
    private Progress current;

    ChaosProgressLines(Opener opener) {
        this.opener = opener;
    }

    @Override
    public synchronized void stage(String name, String unit, long total) {
        finished();
        current = opener.open(name, unit, total);
    }

    @Override
    public synchronized void reached(long count) {
        if (current != null) {
            current.update(count);
        }
    }

    @Override
    public synchronized void finished() {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
