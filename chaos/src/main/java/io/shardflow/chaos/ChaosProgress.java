package io.shardflow.chaos;

/**
 * How far a chaos run has got, for whoever shows it (the command's progress lines, a test): first
 * the samples the broker acknowledged while the faults run, then the samples committed to the log
 * while the pipeline drains. The chaos module does not draw anything itself.
 */
public interface ChaosProgress {

    /** Reports nothing. */
    ChaosProgress NONE = new ChaosProgress() {
        @Override
        public void stage(String name, String unit, long total) {
        }

        @Override
        public void reached(long count) {
        }

        @Override
        public void finished() {
        }
    };

    /** A new countable stage begins; the previous one, if any, is over. */
    void stage(String name, String unit, long total);

    /** The current stage has reached {@code count} (never called with a smaller count than before). */
    void reached(long count);

    /** The last stage is over. */
    void finished();
}
