package io.shardflow.it.reader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.it.PythonShardReader;
import io.shardflow.reader.ReadState;
import io.shardflow.stack.StackEndpoints;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the project's Python reader as a PyTorch trainer would ({@code ShardflowDataLoader} with
 * worker processes, rank by rank) through {@code integration-tests/src/test/resources/python/
 * read_rank_batches.py}, on this checkout's Python package and the test stack's S3 server.
 */
final class PythonRankBatches {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One read: every rank's batches (sample ids) and each rank's {@code state_dict()} afterwards, as saved JSON text. */
    record Result(List<List<List<String>>> ranks, List<String> stateJson) {

        /** Each rank's state as the Java reader reads it. */
        List<ReadState> states() {
            return stateJson.stream().map(ReadState::fromJson).toList();
        }
    }

    private final StackEndpoints endpoints;
    private final Path work;
    private final ArrayNode jobs = JSON.createArrayNode();

    PythonRankBatches(StackEndpoints endpoints, Path work) {
        this.endpoints = endpoints;
        this.work = work;
    }

    /**
     * Adds a read of {@code dataset/version} at {@code snapshot} (null: the latest, or the resume
     * state's) with these rules' inputs; {@code resume} a state to load (Java's or Python's), and
     * {@code stopAfter} batches per rank (null: the whole epoch).
     */
    PythonRankBatches add(String dataset, String version, Long snapshot, long seed, long epoch, int shuffleBlock,
                          int worldSize, int workers, int batchSize, ReadState resume, Integer stopAfter) throws Exception {
        ObjectNode job = jobs.addObject();
        job.put("uri", "s3://" + endpoints.bucket());
        job.put("dataset", dataset);
        job.put("version", version);
        job.putPOJO("snapshot", snapshot);
        job.put("seed", seed);
        job.put("epoch", epoch);
        job.put("shuffle_block", shuffleBlock);
        job.put("drop_last", false);
        job.put("world_size", worldSize);
        job.put("num_workers", workers);
        job.put("batch_size", batchSize);
        job.set("resume", resume == null ? JSON.nullNode() : JSON.readTree(resume.toJson()));
        job.putPOJO("stop_after", stopAfter);
        return this;
    }

    /** Runs every job added, in one Python process. */
    List<Result> run() throws Exception {
        Path repo = Path.of(System.getProperty("shardflow.repo", "..")).toAbsolutePath().normalize();
        Path script = repo.resolve("integration-tests/src/test/resources/python/read_rank_batches.py");
        Path input = Files.createTempFile(work, "jobs", ".json");
        Path output = Files.createTempFile(work, "batches", ".json");
        Path errors = Files.createTempFile(work, "batches", ".err");
        JSON.writeValue(input.toFile(), jobs);
        ProcessBuilder builder = new ProcessBuilder(List.of(PythonShardReader.python().toString(), script.toString(),
                input.toString())).redirectOutput(output.toFile()).redirectError(errors.toFile());
        // The package is read from the source tree, so the test checks this commit's Python code.
        builder.environment().put("PYTHONPATH", repo.resolve("python").toString());
        builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        builder.environment().put("SHARDFLOW_S3_ENDPOINT", endpoints.s3Endpoint());
        builder.environment().put("SHARDFLOW_S3_ACCESS_KEY", endpoints.s3AccessKey());
        builder.environment().put("SHARDFLOW_S3_SECRET_KEY", endpoints.s3SecretKey());
        builder.environment().put("SHARDFLOW_CACHE_DIR", work.resolve("python-cache").toString());
        Process process = builder.start();
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("read_rank_batches.py ran over 300 s: " + Files.readString(errors, StandardCharsets.UTF_8));
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("read_rank_batches.py failed: " + Files.readString(errors, StandardCharsets.UTF_8));
        }
        List<Result> results = new ArrayList<>();
        for (JsonNode result : JSON.readTree(output.toFile()).get("results")) {
            List<List<List<String>>> ranks = new ArrayList<>();
            for (JsonNode rank : result.get("ranks")) {
                List<List<String>> batches = new ArrayList<>();
                for (JsonNode batch : rank) {
                    List<String> ids = new ArrayList<>();
                    batch.forEach(id -> ids.add(id.asText()));
                    batches.add(ids);
                }
                ranks.add(batches);
            }
            List<String> states = new ArrayList<>();
            result.get("states").forEach(state -> states.add(state.asText()));
            results.add(new Result(ranks, states));
        }
        return results;
    }
}
