package io.shardflow.stack;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.utils.Utils;

/** Reads a Kafka client properties file into settings for an admin client. */
final class KafkaClientFiles {

    private KafkaClientFiles() {
    }

    static Map<String, Object> load(Path file) {
        try {
            return Utils.propsToMap(Utils.loadProps(file.toString()));
        } catch (IOException e) {
            throw new StackException("cannot read Kafka client config " + file, e);
        }
    }
}
