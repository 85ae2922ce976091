package io.shardflow.cli.bench;

import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.Role;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.WorkDirs;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Runs the selected figures: on a fresh local stack per S3 server, each figure with its baseline
 * in the same run. A figure that fails is recorded as not measured, with the reason, and the
 * suite goes on: one broken figure must not cost the others.
 */
public final class BenchSuite {

    private final List<Figure> figures;
    private final Clock clock;

    public BenchSuite(List<Figure> figures, Clock clock) {
        this.figures = List.copyOf(figures);
        this.clock = clock;
    }

    /** The figures in the order they run: the quick throughput ones first. */
    public static BenchSuite standard(Clock clock) {
        return new BenchSuite(List.of(new EndToEndFigure(), new SteadyCpuFigure(), new StageFigures(), new SealLatencyFigure(),
                new SinkMemoryFigure(), new ScalingFigure(), new StartupFigure(), new ReaderFigure(), new ConsoleFigure(), new GatewayFigure(),
                new EdgeFigure()), clock);
    }

    public BenchResults run(BenchOptions options, PrintWriter progressOut) throws Exception {
        BenchRecorder recorder = new BenchRecorder();
        boolean firstServer = true;
        for (S3Kind kind : options.s3Kinds()) {
            boolean first = firstServer;
            List<Figure> selected = figures.stream().filter(figure -> figure.ids().stream().anyMatch(options::runs))
                    .filter(figure -> first || figure.everyS3Server()).toList();
            firstServer = false;
            if (selected.isEmpty()) {
                continue;
            }
            Path dir = options.workDir().resolve(kind.name().toLowerCase(Locale.ROOT));
            WorkDirs.wipe(dir);
            progressOut.printf("bench: starting a local stack with %s%n", kind.name().toLowerCase(Locale.ROOT));
            progressOut.flush();
            try {
                runOn(kind, dir, selected, options, progressOut, recorder);
            } catch (RuntimeException e) {
                // the stack itself (a server that would not start): every figure of this server is unmeasured
                for (Figure figure : selected) {
                    figure.ids().stream().filter(options::runs).forEach(id -> recorder.add(Measurement.notMeasured(id.toUpperCase(Locale.ROOT),
                            "local stack", kind.name().toLowerCase(Locale.ROOT), "", "stack did not run: " + e)));
                }
            }
        }
        MachineInfo machine = MachineInfo.detect(options.checkout(), clock);
        if (options.profileDir() != null && !recorder.profiles().isEmpty()) {
            progressOut.printf("bench: wrote %s%n", ProfileReport.write(options.profileDir(), recorder.profiles(), machine, options.reproduce()));
        }
        return recorder.results(machine, options.describe());
    }

    private void runOn(S3Kind kind, Path dir, List<Figure> selected, BenchOptions options, PrintWriter progressOut, BenchRecorder recorder)
            throws Exception {
            try (LocalStack stack = LocalStack.start(StackConfig.defaults(dir.resolve("stack")).withS3Kind(kind));
                 Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()));
                 S3ObjectStore store = S3ObjectStore.connect(StackEndpoints.of(stack).s3Settings())) {
                Map<String, Long> servers = new LinkedHashMap<>();
                servers.put(BenchContext.BROKER, stack.pid(Role.BROKER));
                servers.put(BenchContext.REGISTRY, stack.pid(Role.REGISTRY));
                servers.put(BenchContext.S3_SERVER, stack.pid(Role.S3));
                BenchContext context = new BenchContext(StackEndpoints.of(stack), kind, admin, store, options, dir, progressOut, recorder,
                        clock, servers);
                for (Figure figure : selected) {
                    runOne(figure, context);
                }
            }
    }

    private static void runOne(Figure figure, BenchContext context) {
        try {
            figure.run(context);
        } catch (Exception | OutOfMemoryError e) {
            String why = "failed: " + e;
            context.say("%s %s", String.join("/", figure.ids()), why);
            for (String id : figure.ids()) {
                if (context.options().runs(id)) {
                    context.recorder().add(Measurement.notMeasured(id.toUpperCase(Locale.ROOT), "run failed", context.s3(), "", why));
                }
            }
        }
    }
}
