package io.shardflow.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.cli.Progress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * P3, the Python reader against raw parallel GETs of the same shards, measured by the Python
 * package's own script ({@code python3 -m shardflow.tools.bench_read}) on a dataset the pipeline writes
 * here. Where the checkout has no such script, P3 is recorded as not measured.
 */
public final class ReaderFigure implements Figure {

    static final String SCRIPT = "python/shardflow/tools/bench_read.py";
    private static final String GOAL_COLD = ">= 0.8";
    private static final String GOAL_LOADER = ">= 0.6";

    @Override
    public List<String> ids() {
        return List.of("p3");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        Path checkout = context.options().checkout();
        if (!Files.isRegularFile(checkout.resolve(SCRIPT))) {
            String why = "no " + SCRIPT + " in this checkout";
            context.recorder().add(Measurement.notMeasured("P3", "Python reader cold vs raw parallel GET", context.s3(), GOAL_COLD, why));
            context.recorder().add(Measurement.notMeasured("P3", "DataLoader, 2 workers, vs raw parallel GET", context.s3(), GOAL_LOADER, why));
            return;
        }
        SampleShape shape = SampleShape.SMALL;
        long samples = context.options().samples();
        context.say("P3 Python reader on %d samples of %s, %s", samples, shape.name(), context.s3());
        BenchCase benchCase = context.newCase("p3-read", 3, shape);
        try (ServicePipeline pipeline = new ServicePipeline(context, benchCase,
                ServicePipeline.Shape.throughput(1, context.options().shardSamples())).start();
             Publishing publishing = new Publishing(context, benchCase.samplesTopic(), shape.samples(benchCase.dataset(), BenchCase.VERSION));
             Progress progress = context.progress("P3 dataset", "samples", samples)) {
            publishing.publish(0, samples, Progress.silent());
            CommitWatch.await(context.commitLog(benchCase), samples, 0, pipeline, Duration.ofMinutes(15), progress);
        }
        Map<String, Object> output = runScript(context, checkout, benchCase);
        context.recorder().readerOutput(output);
        double raw = number(output, "raw_parallel_get_mb_s");
        context.recorder().add(Measurement.againstBaseline("P3", "Python reader cold vs raw parallel GET", context.s3(),
                number(output, "reader_cold_mb_s"), "MB/s", raw, "raw parallel GET", GOAL_COLD, 0.8, null));
        context.recorder().add(Measurement.againstBaseline("P3", "DataLoader, 2 workers, vs raw parallel GET", context.s3(),
                number(output, "dataloader_2_workers_mb_s"), "MB/s", raw, "raw parallel GET", GOAL_LOADER, 0.6, null));
        if (Files.isRegularFile(checkout.resolve(FastPathFigures.SCRIPT))) {
            String python = FastPathFigures.python(python());
            List<String> args = FastPathFigures.arguments(python, context.endpoints().s3Endpoint(), context.endpoints().bucket(),
                    benchCase.dataset(), BenchCase.VERSION);
            FastPathFigures.record(context, runScript(context, checkout, benchCase, args, "bench_fast.log"));
        }
    }

    /**
     * SHARDFLOW_PYTHON, else the venv scripts/setup-python.sh makes (it has h5py, boto3 and torch),
     * else python3 from the PATH.
     */
    private static String python() {
        String configured = System.getenv("SHARDFLOW_PYTHON");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        Path venv = Path.of(System.getProperty("user.home"), ".cache", "shardflow", "venv", "bin", "python");
        return Files.isExecutable(venv) ? venv.toString() : "python3";
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> runScript(BenchContext context, Path checkout, BenchCase benchCase) throws Exception {
        return runScript(context, checkout, benchCase, List.of(python(), "-m", "shardflow.tools.bench_read", "--endpoint",
                context.endpoints().s3Endpoint(), "--bucket", context.endpoints().bucket(), "--dataset", benchCase.dataset(),
                "--version", BenchCase.VERSION, "--json"), "bench_read.log");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> runScript(BenchContext context, Path checkout, BenchCase benchCase, List<String> command,
                                                 String log) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.directory(checkout.toFile());
        Map<String, String> env = builder.environment();
        env.put("PYTHONPATH", checkout.resolve("python").toString());
        env.put("SHARDFLOW_S3_ENDPOINT", context.endpoints().s3Endpoint());
        env.put("SHARDFLOW_S3_ACCESS_KEY", context.endpoints().s3AccessKey());
        env.put("SHARDFLOW_S3_SECRET_KEY", context.endpoints().s3SecretKey());
        env.put("AWS_ACCESS_KEY_ID", context.endpoints().s3AccessKey());
        env.put("AWS_SECRET_ACCESS_KEY", context.endpoints().s3SecretKey());
        Path errors = context.caseDir(benchCase).resolve(log);
        Files.createDirectories(errors.getParent());
        builder.redirectError(errors.toFile());
        Process process = builder.start();
        byte[] stdout = process.getInputStream().readAllBytes();
        if (!process.waitFor(15, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command.subList(1, command.size())) + " failed; see " + errors);
        }
        return new ObjectMapper().readValue(new String(stdout, StandardCharsets.UTF_8), Map.class);
    }

    private static double number(Map<String, Object> output, String key) {
        Object value = output.get(key);
        if (!(value instanceof Number number)) {
            throw new IllegalStateException("bench_read printed no number for " + key);
        }
        return number.doubleValue();
    }
}
