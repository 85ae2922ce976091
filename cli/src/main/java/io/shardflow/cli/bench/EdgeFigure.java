package io.shardflow.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * EDGE, the Python edge SDK (python/shardflow/edge): samples queued durably and delivered, per way
 * of sending and queue durability ({@link #WAYS}), against raw confluent-kafka producing the same
 * records to the same broker in the same run, before and after (its own script,
 * {@code python -m shardflow.edge.bench}; the plot is {@link BenchPlots#EDGE}); and the queue alone against SQLite in WAL mode and
 * persist-queue ({@code python -m shardflow.edge.bench_queue}). Only the broker and the registry of
 * the stack are used. Where the checkout has no such scripts, EDGE is recorded as not measured.
 */
public final class EdgeFigure implements Figure {

    static final String SCRIPT = "python/shardflow/edge/bench.py";

    /** A way of sending the bench measures: its key in the script's rows, its label and what it means. */
    record Way(String key, String label, String detail) {
    }

    static final List<Way> WAYS = List.of(
            new Way("send_fsync", "Python SDK send(), durability fsync", "each sample synced before send returns"),
            new Way("send_process", "Python SDK send(), durability process", "written to the OS; synced in the background"),
            new Way("send_async_fsync", "Python SDK send_async(), durability fsync", "futures resolved by shared syncs"),
            new Way("send_many_fsync", "Python SDK send_many(64), durability fsync", "one sync per 64 samples"));

    @Override
    public List<String> ids() {
        return List.of("edge");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        Path checkout = context.options().checkout();
        if (!Files.isRegularFile(checkout.resolve(SCRIPT))) {
            context.recorder().add(Measurement.notMeasured("EDGE", "Python edge SDK vs raw confluent-kafka", context.s3(), ">= 0.9",
                    "no " + SCRIPT + " in this checkout"));
            return;
        }
        long samples = Math.max(200, context.options().samples() / 4);
        context.say("EDGE Python SDK, %d samples per size, against raw confluent-kafka", samples);
        Map<String, Object> sdk = runScript(context, checkout, "edge-bench.log", "-m", "shardflow.edge.bench", "--bootstrap",
                context.endpoints().bootstrapServers(), "--registry", context.endpoints().registryUrl(), "--samples",
                Long.toString(samples), "--rounds", context.options().samples() >= 8_000 ? "5" : "1", "--json");
        for (Object row : (List<?>) sdk.get("rows")) {
            Map<?, ?> r = (Map<?, ?>) row;
            String size = (String) r.get("size");
            boolean large = size.startsWith("64");
            for (Way way : WAYS) {
                if (!r.containsKey(way.key() + "_samples_per_s")) {
                    continue;
                }
                String cpu = String.format("%s; ratio: the median over %s rounds of each round's ratio (value = that x the median raw"
                                + " rate; the SDK's median rate %.0f/s); CPU %.0f µs/sample, raw %.0f; raw ran at %.0f to %.0f/s",
                        way.detail(), sdk.get("rounds"), number(r, way.key() + "_samples_per_s"), number(r, way.key() + "_cpu_us_per_sample"),
                        number(r, "raw_cpu_us_per_sample"), number(r, "raw_min_samples_per_s"), number(r, "raw_max_samples_per_s"));
                // the median ratio over the rounds, each against the raw runs around it (not the ratio of medians)
                double baseline = number(r, way.key() + "_raw_samples_per_s");
                double value = number(r, way.key() + "_ratio") * baseline;
                context.recorder().add(Measurement.againstBaseline("EDGE", way.label() + ", then delivered, " + size, context.s3(),
                        value, "samples/s", baseline, "raw confluent-kafka, same records, run just before and after",
                        large ? ">= 0.9" : ">= 0.7", large ? 0.9 : 0.7, cpu));
            }
        }
        context.say("EDGE queue alone: segment log vs SQLite WAL vs persist-queue");
        boolean full = context.options().samples() >= 8_000;
        Map<String, Object> queue = runScript(context, checkout, "edge-queue-bench.log", "-m", "shardflow.edge.bench_queue",
                "--entries", full ? "1000" : "100", "--backlog-mib", full ? "512" : "16", "--warmup-mib", full ? "24" : "2", "--json");
        for (Object row : (List<?>) queue.get("throughput")) {
            Map<?, ?> r = (Map<?, ?>) row;
            if (((String) r.get("store")).startsWith("segment")) {
                continue;
            }
            Map<?, ?> ours = ((List<?>) queue.get("throughput")).stream().map(o -> (Map<?, ?>) o)
                    .filter(o -> ((String) o.get("store")).startsWith("segment") && o.get("entry").equals(r.get("entry"))).findFirst()
                    .orElseThrow();
            context.recorder().add(Measurement.againstBaseline("EDGE-Q", "queue drain (read + delete), " + r.get("entry"), context.s3(),
                    number(ours, "drain_per_s"), "entries/s", number(r, "drain_per_s"), (String) r.get("store"), ">= 1", 1.0, null));
            context.recorder().add(Measurement.againstBaseline("EDGE-Q", "durable appends, one at a time, " + r.get("entry"), context.s3(),
                    number(ours, "append_one_per_s"), "entries/s", number(r, "append_one_per_s"), (String) r.get("store"), ">= 1", 1.0,
                    null));
        }
    }

    private static Map<String, Object> runScript(BenchContext context, Path checkout, String logName, String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(python()));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).directory(checkout.toFile());
        builder.environment().put("PYTHONPATH", checkout.resolve("python").toString());
        Path errors = context.options().workDir().resolve(logName);
        Files.createDirectories(errors.getParent());
        builder.redirectError(errors.toFile());
        Process process = builder.start();
        byte[] stdout = process.getInputStream().readAllBytes();
        if (!process.waitFor(30, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException("python " + String.join(" ", arguments) + " failed; see " + errors);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> output = new ObjectMapper().readValue(new String(stdout, StandardCharsets.UTF_8), Map.class);
        return output;
    }

    /** SHARDFLOW_PYTHON, else the venv scripts/setup-python.sh makes, else python3 from the PATH. */
    private static String python() {
        String configured = System.getenv("SHARDFLOW_PYTHON");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        Path venv = Path.of(System.getProperty("user.home"), ".cache", "shardflow", "venv", "bin", "python");
        return Files.isExecutable(venv) ? venv.toString() : "python3";
    }

    private static double number(Map<?, ?> row, String key) {
        if (!(row.get(key) instanceof Number n)) {
            throw new IllegalStateException("the edge bench printed no number for " + key);
        }
        return n.doubleValue();
    }
}
