package io.shardflow.sink.violation;

import io.shardflow.stack.LocalStack;
import io.shardflow.stack.StackConfig;
import java.nio.file.Path;

/** A fixture that breaks the rules on purpose: "service" code reaching into the local stack. Never run. */
final class SinkStartingALocalStack {

    LocalStack start(Path dir) {
        return LocalStack.start(StackConfig.defaults(dir));
    }
}
