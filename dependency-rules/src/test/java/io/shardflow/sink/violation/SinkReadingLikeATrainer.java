package io.shardflow.sink.violation;

import io.shardflow.reader.ReaderOptions;

/** A fixture that breaks the rules on purpose: "service" code carrying the trainer reader. Never run. */
final class SinkReadingLikeATrainer {

    Class<?> options() {
        return ReaderOptions.class;
    }
}
