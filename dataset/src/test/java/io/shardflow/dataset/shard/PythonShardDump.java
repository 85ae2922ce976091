package io.shardflow.dataset.shard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

/** Reads a shard with Debian's h5py or PyTables through {@code /usr/bin/python3} and returns every value as JSON. */
final class PythonShardDump {

    static final String PYTHON = "/usr/bin/python3";

    private PythonShardDump() {
    }

    static JsonNode dump(String library, Path shard, Path workDir) throws IOException, InterruptedException {
        Path script = workDir.resolve("dump_shard.py");
        try (InputStream in = PythonShardDump.class.getResourceAsStream("/python/dump_shard.py")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        Path stdout = workDir.resolve(library + ".json");
        Path stderr = workDir.resolve(library + ".err");
        Process process = new ProcessBuilder(PYTHON, script.toString(), library, shard.toString())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(library + " did not read " + shard + " within 120 s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(library + " could not read " + shard + ": "
                    + Files.readString(stderr, StandardCharsets.UTF_8));
        }
        return new ObjectMapper().readTree(stdout.toFile());
    }
}
