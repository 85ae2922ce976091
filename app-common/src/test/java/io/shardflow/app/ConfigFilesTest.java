package io.shardflow.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFilesTest {

    @TempDir
    Path dir;

    @Test
    void shouldLayerFileThenEnvironmentThenOverrides() throws Exception {
        Path file = Files.writeString(dir.resolve("sink.properties"), "s3.endpoint=http://file\ns3.bucket = from-file \nspool.dir=/a\n");
        Map<String, Object> settings = ConfigFiles.load(file,
                Map.of("SHARDFLOW_S3_ENDPOINT", "http://env", "PATH", "/usr/bin", "SHARDFLOW_", "ignored"),
                Map.of("spool.dir", "/override"));

        assertThat(settings).containsEntry("s3.endpoint", "http://env")
                .containsEntry("s3.bucket", "from-file")
                .containsEntry("spool.dir", "/override")
                .doesNotContainKey("path");
    }

    @Test
    void shouldMapEnvironmentNamesToDottedKeys() {
        assertThat(ConfigFiles.keyOf("SHARDFLOW_S3_ACCESS_KEY")).isEqualTo("s3.access.key");
        assertThat(ConfigFiles.keyOf("SHARDFLOW_BOOTSTRAP_SERVERS")).isEqualTo("bootstrap.servers");
    }

    @Test
    void shouldNameAMissingConfigFile() {
        assertThatThrownBy(() -> ConfigFiles.load(dir.resolve("nope.properties"), Map.of(), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("nope.properties does not exist");
    }
}
