package io.shardflow.console.violation;

import io.shardflow.sink.SinkHook;

/** A fixture that breaks the rules on purpose: console code reaching into shard-sink. Never run. */
final class ConsoleCommittingLikeTheSink {

    Class<?> hook() {
        return SinkHook.class;
    }
}
