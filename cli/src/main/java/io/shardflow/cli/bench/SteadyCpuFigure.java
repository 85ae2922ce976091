package io.shardflow.cli.bench;

import java.util.List;
import java.util.Locale;

/**
 * CPU: the steady-state CPU-seconds per GB of tensors that ingest-app and shard-sink spend
 * carrying samples end to end (one instance each, {@code --steady-gb} through the timed part, after
 * the warm-up), from the service processes' own thread counters with JIT and VM/GC threads apart,
 * beside the raw produce+consume clients' CPU per GB (a round before and one after). The warm-up's
 * CPU per GB is reported apart, and so is every process's (broker, S3 server, registry, publisher):
 * on a machine whose cores are all busy, the ratio of the two machines' CPU per GB bounds P1.
 */
public final class SteadyCpuFigure implements Figure {

    /** The goal: the services spend at most this many times what the raw clients spend per GB. */
    static final double GOAL_RATIO = 3.0;

    @Override
    public List<String> ids() {
        return List.of("cpu");
    }

    @Override
    public void run(BenchContext context) throws Exception {
        SampleShape shape = SampleShape.SMALL;
        long samples = Math.max(1, context.options().steadyBytes() / shape.tensorBytes());
        context.say("CPU steady state, %d samples (%.2f GB) of %s on %s", samples, samples * shape.tensorBytes() / 1e9, shape.name(),
                context.s3());
        EndToEndRun run = EndToEndRun.measure(context, "cpu", shape, samples, 1, 2, true);
        double gb = run.gigabytes();
        CpuSplit services = run.serviceCpu().per(gb);
        // The JIT compiler threads are kept apart on both sides: a one-off per process (it still finishes its last
        // compiles after the warm-up on a busy machine), nothing a long-running service pays per GB.
        double servicesSteady = services.total() - services.jit();
        List<Double> rawRounds = run.raw().stream().map(round -> round.clientCpuPerGb().total() - round.clientCpuPerGb().jit()).toList();
        double raw = rawRounds.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        context.recorder().add(Measurement.withGoal("CPU", "steady state, ingest-app + shard-sink (JIT threads apart)", context.s3(),
                servicesSteady, "CPU-s/GB", raw, "raw produce+consume clients (JIT threads apart)", "<= " + (int) GOAL_RATIO + "x raw clients",
                servicesSteady <= GOAL_RATIO * raw, String.format(Locale.ROOT, "%.2f GB in %.0f s after %.2f GB of warm-up; CPU-s/GB %s, %s; "
                                + "JIT threads on top: services %.2f, raw clients %s; raw %s", gb, run.pipelineSeconds(), run.warmupTensorBytes() / 1e9,
                        run.stageCpu(ServicePipeline.INGEST), run.stageCpu(ServicePipeline.SINK), services.jit(),
                        RawKafkaRounds.spread(run.raw().stream().map(round -> round.clientCpuPerGb().jit()).toList(), "CPU-s/GB"),
                        RawKafkaRounds.spread(rawRounds, "CPU-s/GB"))));
        double warmGb = run.warmupTensorBytes() / 1e9;
        CpuSplit warm = run.warmup().of(ServicePipeline.SERVICES).per(warmGb);
        context.recorder().add(Measurement.withGoal("CPU", "warm-up, ingest-app + shard-sink", context.s3(), warm.total(), "CPU-s/GB", raw,
                "raw produce+consume clients", "reported", null, String.format(Locale.ROOT,
                        "the first %.2f GB after the services were ready: JIT compiler threads %.2f, VM/GC %.2f CPU-s/GB", warmGb, warm.jit(),
                        warm.vm())));
        double machine = run.steady().all().total() / gb;
        double rawMachine = run.raw().stream().mapToDouble(round -> round.cpu().all().total() / (round.tensorBytes() / 1e9)).average()
                .orElse(Double.NaN);
        context.recorder().add(Measurement.withGoal("CPU", "every process of the run (services, broker, S3, registry, publisher)",
                context.s3(), machine, "CPU-s/GB", rawMachine, "every process of the raw rounds (clients, broker, ...)", "reported", null,
                String.format(Locale.ROOT, "pipeline: %s; raw: %s; where every core is busy, P1 cannot pass %.2f", run.machineCpu(),
                        rawMachineByRole(run), rawMachine / machine)));
        context.recorder().add(Measurement.againstBaseline("P1", shape.name() + " samples, steady state (CPU run)", context.s3(),
                run.pipelineMbPerSecond(), "MB/s", run.rawMbPerSecond(), "raw Kafka produce+consume", ">= 0.6", 0.6,
                String.format(Locale.ROOT, "%.2f GB after %.2f GB of warm-up; raw %s", gb, warmGb, run.rawRates())));
    }

    private static String rawMachineByRole(EndToEndRun run) {
        if (run.raw().isEmpty()) {
            return "not run";
        }
        RawKafkaRounds.Round first = run.raw().get(0);
        double gb = first.tensorBytes() / 1e9;
        StringBuilder text = new StringBuilder();
        first.cpu().byRole().entrySet().stream().filter(entry -> entry.getValue().total() > 0)
                .sorted((a, b) -> Double.compare(b.getValue().total(), a.getValue().total()))
                .forEach(entry -> text.append(text.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.2f", entry.getKey(),
                        entry.getValue().total() / gb)));
        return text.toString();
    }
}
