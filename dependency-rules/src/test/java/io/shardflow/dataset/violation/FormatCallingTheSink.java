package io.shardflow.dataset.violation;

import io.shardflow.sink.SinkHook;

/** A fixture that breaks the rules on purpose: the format module reaching up into a service. Never run. */
final class FormatCallingTheSink {

    SinkHook hook() {
        return SinkHook.NONE;
    }
}
