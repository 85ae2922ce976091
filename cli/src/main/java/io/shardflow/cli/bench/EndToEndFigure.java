package io.shardflow.cli.bench;

import java.util.List;
import java.util.Locale;

/**
 * P1, publish to committed beside raw Kafka produce+consume of the same records (a round before
 * and one after the pipeline), for each sample size, after a warm-up; and from the first size's
 * run, broker bytes written per tensor byte published.
 */
public final class EndToEndFigure implements Figure {

    @Override
    public List<String> ids() {
        return List.of("p1", "bytes");
    }

    @Override
    public boolean everyS3Server() {
        return true;
    }

    @Override
    public void run(BenchContext context) throws Exception {
        BenchOptions options = context.options();
        List<SampleShape> shapes = options.runs("p1") ? options.shapes() : options.shapes().subList(0, 1);
        boolean first = true;
        for (SampleShape shape : shapes) {
            long samples = options.samplesOf(shape);
            context.say("P1 end to end, %d samples of %s on %s", samples, shape.name(), context.s3());
            EndToEndRun run = EndToEndRun.measure(context, "p1-" + shape.name(), shape, samples, 1, 2);
            String label = shape.name() + " samples";
            if (options.runs("p1")) {
                context.recorder().add(Measurement.againstBaseline("P1", label, context.s3(), run.pipelineMbPerSecond(), "MB/s",
                        run.rawMbPerSecond(), "raw Kafka produce+consume", ">= 0.6", 0.6,
                        String.format(Locale.ROOT, "%d samples after %d of warm-up, %.0f samples/s; CPU-s/GB %s, %s; raw %s", samples,
                                run.warmupSamples(), samples / run.pipelineSeconds(), run.stageCpu(ServicePipeline.INGEST),
                                run.stageCpu(ServicePipeline.SINK), run.rawRates())));
            }
            if (first && options.runs("bytes")) {
                double perTensorByte = run.pipelineBrokerBytes() / (double) run.tensorBytes();
                context.recorder().add(Measurement.withGoal("bytes", label + ", broker bytes written per tensor byte", context.s3(),
                        perTensorByte, "B/B", run.rawBrokerBytes() / (double) run.tensorBytes(), "raw produce of the same records",
                        "<= 1.2", perTensorByte <= 1.2, String.format(Locale.ROOT, "%.0f MB written for %.0f MB of tensors",
                                run.pipelineBrokerBytes() / 1e6, run.tensorBytes() / 1e6)));
            }
            first = false;
        }
    }
}
