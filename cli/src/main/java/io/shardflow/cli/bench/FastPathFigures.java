package io.shardflow.cli.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * P3's fast-path rows, from {@code python -m shardflow.tools.bench_fast} on the P3 dataset: the batch
 * path cold, warm and without a cache against a raw parallel GET of the same shards, the DataLoader
 * with 0, 2 and 4 workers, and (in the bench venv of {@code scripts/setup-frameworks.sh --bench})
 * WebDataset and MosaicML Streaming on the same samples.
 */
final class FastPathFigures {

    static final String SCRIPT = "python/shardflow/tools/bench_fast.py";
    private static final String GOAL = ">= 0.8";

    private FastPathFigures() {
    }

    /** SHARDFLOW_BENCH_PYTHON, else the bench venv when it exists (it has the peers), else the reader's python. */
    static String python(String readerPython) {
        String configured = System.getenv("SHARDFLOW_BENCH_PYTHON");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        Path venv = Path.of(System.getProperty("user.home"), ".cache", "shardflow", "venv-bench", "bin", "python");
        return Files.isExecutable(venv) ? venv.toString() : readerPython;
    }

    static List<String> arguments(String python, String endpoint, String bucket, String dataset, String version) {
        List<String> command = new ArrayList<>(List.of(python, "-m", "shardflow.tools.bench_fast", "--endpoint", endpoint,
                "--bucket", bucket, "--dataset", dataset, "--version", version, "--json"));
        if (python.contains("venv-bench") || System.getenv("SHARDFLOW_BENCH_PYTHON") != null) {
            command.add("--peers");
        }
        return command;
    }

    @SuppressWarnings("unchecked")
    static void record(BenchContext context, Map<String, Object> output) {
        double raw = ((Number) output.get("raw_parallel_get_mb_s")).doubleValue();
        Map<String, Object> paths = (Map<String, Object>) output.get("paths");
        add(context, paths, "batch_cold", "Batch fast path, cold cache, vs raw parallel GET", raw, GOAL, 0.8);
        add(context, paths, "batch_warm", "Batch fast path, warm cache, vs raw parallel GET", raw, GOAL, 0.8);
        add(context, paths, "batch_no_cache", "Batch fast path, no cache, vs raw parallel GET", raw, "reported", 0);
        for (String key : paths.keySet()) {
            if (key.startsWith("dataloader_")) {
                add(context, paths, key, "DataLoader fast path, " + key.replace("dataloader_", "").replace('_', ' ')
                        + ", vs raw parallel GET", raw, "reported", 0);
            }
        }
        Object peers = output.get("peers");
        if (peers instanceof Map<?, ?> map) {
            double peersRaw = ((Number) output.get("peers_raw_mb_s")).doubleValue();
            add(context, (Map<String, Object>) map, "webdataset", "WebDataset, same samples, vs raw parallel GET", peersRaw, "reported", 0);
            add(context, (Map<String, Object>) map, "mosaic_streaming", "MosaicML Streaming, same samples, vs raw parallel GET", peersRaw,
                    "reported", 0);
        }
    }

    @SuppressWarnings("unchecked")
    private static void add(BenchContext context, Map<String, Object> paths, String key, String label, double raw, String goal,
                            double minimum) {
        Object figures = paths.get(key);
        if (!(figures instanceof Map<?, ?> map) || !(map.get("mb_s") instanceof Number rate)) {
            context.recorder().add(Measurement.notMeasured("P3", label, context.s3(), goal, "bench_fast printed no " + key));
            return;
        }
        Measurement row = minimum > 0
                ? Measurement.againstBaseline("P3", label, context.s3(), rate.doubleValue(), "MB/s", raw, "raw parallel GET", goal, minimum, null)
                : Measurement.withGoal("P3", label, context.s3(), rate.doubleValue(), "MB/s", raw, "raw parallel GET", goal, null, null);
        context.recorder().add(row);
    }
}
