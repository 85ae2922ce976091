package io.shardflow.sink.violation;

import io.shardflow.console.ConsoleServer;

/** A fixture that breaks the rules on purpose: "service" code starting the web console. Never run. */
final class SinkServingTheConsole {

    Class<?> console() {
        return ConsoleServer.class;
    }
}
