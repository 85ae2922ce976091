package io.shardflow.gateway.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** A secret setting given inline or, better, as a file (a mounted Kubernetes secret): the file wins. */
final class Secrets {

    private Secrets() {
    }

    static String read(AbstractConfig config, String inlineKey, String fileKey) {
        String file = config.getString(fileKey);
        if (file.isEmpty()) {
            Password password = config.getPassword(inlineKey);
            return password == null ? "" : password.value();
        }
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new ConfigException(fileKey, file, "cannot be read: " + e.getMessage());
        }
    }
}
