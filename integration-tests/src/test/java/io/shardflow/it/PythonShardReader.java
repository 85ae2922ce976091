package io.shardflow.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Opens a shard with h5py through the project's Python package ({@code python -m shardflow.tools.inspect}),
 * so tests check what a trainer would read, not what our own Java reader thinks is there.
 */
public final class PythonShardReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private PythonShardReader() {
    }

    /** The venv made by scripts/setup-python.sh, or SHARDFLOW_PYTHON. */
    public static Path python() {
        String configured = System.getenv("SHARDFLOW_PYTHON");
        Path python = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "shardflow", "venv", "bin", "python");
        if (!Files.isExecutable(python)) {
            throw new IllegalStateException("no Python with h5py at " + python + "; run scripts/setup-python.sh or set SHARDFLOW_PYTHON");
        }
        return python;
    }

    public static JsonNode read(Path shard) throws IOException, InterruptedException {
        Path repoPython = Path.of(System.getProperty("shardflow.repo", "..")).resolve("python").toAbsolutePath().normalize();
        Path output = Files.createTempFile("shard", ".json");
        try {
            ProcessBuilder builder = new ProcessBuilder(List.of(python().toString(), "-m", "shardflow.tools.inspect", shard.toString()))
                    .redirectOutput(output.toFile()).redirectError(ProcessBuilder.Redirect.PIPE);
            // The package is read from the source tree, so the test checks this commit's Python code.
            builder.environment().put("PYTHONPATH", repoPython.toString());
            Process process = builder.start();
            String errors = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("python -m shardflow.tools.inspect failed: " + errors);
            }
            return JSON.readTree(output.toFile());
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
