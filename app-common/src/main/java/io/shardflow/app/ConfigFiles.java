package io.shardflow.app;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;

/**
 * Reads a process's settings: a properties file, then environment variables, then {@code -Dkey}
 * style overrides. Environment variables let the same image run under docker compose or Kubernetes
 * without a file: {@code SHARDFLOW_S3_ENDPOINT} sets {@code s3.endpoint}.
 */
public final class ConfigFiles {

    public static final String ENV_PREFIX = "SHARDFLOW_";

    private ConfigFiles() {
    }

    public static Map<String, Object> load(Path file, Map<String, String> environment, Map<String, String> overrides) {
        Map<String, Object> settings = new HashMap<>();
        if (file != null) {
            if (!Files.isRegularFile(file)) {
                throw new ConfigException("config file " + file + " does not exist");
            }
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                props.load(reader);
            } catch (IOException e) {
                throw new ConfigException("config file " + file + " cannot be read: " + e.getMessage());
            }
            props.forEach((k, v) -> settings.put(k.toString().trim(), v.toString().trim()));
        }
        environment.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX) && name.length() > ENV_PREFIX.length()) {
                settings.put(keyOf(name), value);
            }
        });
        settings.putAll(overrides);
        return settings;
    }

    /** {@code SHARDFLOW_S3_ACCESS_KEY} → {@code s3.access.key}. */
    static String keyOf(String environmentName) {
        return environmentName.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
    }
}
