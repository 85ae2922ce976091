package io.shardflow.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Utils;

/**
 * The one way every shardflow Kafka client gets its security settings: {@code kafka.client.config}
 * (environment {@code SHARDFLOW_KAFKA_CLIENT_CONFIG}) names a standard Kafka client properties file
 * ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}), merged into every producer, consumer,
 * Streams instance and admin client of the process, start-up probes included. A file rather than
 * settings keeps {@code sasl.jaas.config} and key-store passwords out of the process's arguments.
 * Any other {@code kafka.*} setting is applied on top, without the prefix.
 */
public final class KafkaClientConfig {

    public static final String CLIENT_CONFIG = "kafka.client.config";
    public static final String ENV_NAME = "SHARDFLOW_KAFKA_CLIENT_CONFIG";
    public static final String KAFKA_PREFIX = "kafka.";

    private KafkaClientConfig() {
    }

    /** Adds {@value #CLIENT_CONFIG} to {@code definition} and returns it. */
    public static ConfigDef define(ConfigDef definition) {
        return definition.define(CLIENT_CONFIG, Type.STRING, "", new ReadableFile(), Importance.HIGH,
                "Kafka client properties file (security.protocol, sasl.*, ssl.*) merged into every Kafka client; "
                        + "empty for none (a PLAINTEXT cluster)");
    }

    /**
     * The client settings of {@code config}: the file's, then the {@code kafka.*} settings without
     * their prefix. Put them over the process's own defaults, under anything it must fix.
     */
    public static Map<String, Object> clientSettings(AbstractConfig config) {
        Map<String, Object> settings = new HashMap<>(load(config.getString(CLIENT_CONFIG)));
        Map<String, Object> overrides = new HashMap<>(config.originalsWithPrefix(KAFKA_PREFIX));
        overrides.remove(CLIENT_CONFIG.substring(KAFKA_PREFIX.length()));
        settings.putAll(overrides);
        return settings;
    }

    /** The properties in {@code file}; empty when {@code file} is null or blank. */
    public static Map<String, Object> load(String file) {
        if (file == null || file.isBlank()) {
            return Map.of();
        }
        try {
            return Utils.propsToMap(Utils.loadProps(file));
        } catch (IOException e) {
            throw new ConfigException(CLIENT_CONFIG, file, "cannot be read: " + e.getMessage());
        }
    }

    /** Stops the process at start, naming the key, when the file is missing or unreadable. */
    private static final class ReadableFile implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String file = (String) value;
            if (file != null && !file.isBlank() && !Files.isReadable(Path.of(file))) {
                throw new ConfigException(name, value, "no readable file there");
            }
        }

        @Override
        public String toString() {
            return "a readable Kafka client properties file, or empty";
        }
    }
}
