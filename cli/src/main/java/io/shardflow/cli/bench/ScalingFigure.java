package io.shardflow.cli.bench;

import java.util.List;
import java.util.Locale;

/**
 * P5: CPU-seconds of the service processes per GB of tensors carried end to end, beside what the
 * raw produce+consume of the same records cost its clients; and throughput with two ingest-app and
 * two shard-sink instances beside one of each, in the same run.
 */
public final class ScalingFigure implements Figure {

    @Override
    public List<String> ids() {
        return List.of("p5");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        SampleShape shape = SampleShape.SMALL;
        long samples = context.options().samples();
        context.say("P5 one instance of each service, %d samples, on %s", samples, context.s3());
        EndToEndRun one = EndToEndRun.measure(context, "p5-one", shape, samples, 1, true);
        context.say("P5 two instances of each service, %d samples, on %s", samples, context.s3());
        EndToEndRun two = EndToEndRun.measure(context, "p5-two", shape, samples, 2, false);
        context.recorder().add(Measurement.withGoal("P5", "CPU-seconds per GB, 1 instance each", context.s3(),
                one.serviceCpuSeconds() / one.gigabytes(), "CPU-s/GB", one.rawClientCpuSeconds() / one.gigabytes(),
                "raw produce+consume clients", "reported", null,
                String.format(Locale.ROOT, "ingest-app + shard-sink, %.1f CPU-s for %.2f GB; %s", one.serviceCpuSeconds(), one.gigabytes(),
                        overheads(one))));
        context.recorder().add(Measurement.withGoal("P5", "CPU-seconds per GB, 2 instances each", context.s3(),
                two.serviceCpuSeconds() / two.gigabytes(), "CPU-s/GB", one.rawClientCpuSeconds() / one.gigabytes(),
                "raw produce+consume clients", "reported", null, String.format(Locale.ROOT, "%.1f CPU-s; %s", two.serviceCpuSeconds(),
                        overheads(two))));
        // Two of each means four JVMs compiling the same code on the same cores: the JIT share says how much of the gap that is.
        context.recorder().add(Measurement.againstBaseline("P5", "throughput, 2 instances of each vs 1", context.s3(),
                two.pipelineMbPerSecond(), "MB/s", one.pipelineMbPerSecond(), "1 instance of each", "2 not slower than 1 (>= 1.0)", 1.0,
                String.format(Locale.ROOT, "raw Kafka %.1f MB/s", one.rawMbPerSecond())));
    }

    private static String overheads(EndToEndRun run) {
        return String.format(Locale.ROOT, "JIT compiler threads %.1f CPU-s, VM thread (GC) %.1f CPU-s", run.serviceCpu().jit(),
                run.serviceCpu().vm());
    }
}
