package io.shardflow.chaos.sink;

import io.shardflow.app.ConfigFiles;
import io.shardflow.app.ServiceMain;
import io.shardflow.sink.ShardSinkApp;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A shard-sink process with crash and freeze injection installed, for the chaos harness only:
 * {@code FaultInjectingSinkApp config.properties [--crash-points=SPEC] [--freeze-points=SPEC]}.
 * Settings are read exactly as {@code ShardSinkApp} reads them; the faults come from the arguments,
 * never from a setting (see the package comment for the spec format).
 */
public final class FaultInjectingSinkApp {

    static final String CRASH_POINTS = "--crash-points=";
    static final String FREEZE_POINTS = "--freeze-points=";

    private FaultInjectingSinkApp() {
    }

    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        CrashPoints points;
        try {
            points = crashPoints(List.of(args).subList(1, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println("shard-sink: bad fault injection argument: " + e.getMessage());
            System.exit(ServiceMain.EXIT_BAD_CONFIG);
            return;
        }
        System.exit(ServiceMain.run("shard-sink",
                () -> ShardSinkApp.start(ConfigFiles.load(file, System.getenv(), Map.of()), points)));
    }

    /** The arguments that follow the config file; refuses a malformed spec now, naming the argument. */
    public static List<String> arguments(String crashSpec, String freezeSpec) {
        List<String> arguments = List.of(CRASH_POINTS + crashSpec, FREEZE_POINTS + freezeSpec);
        crashPoints(arguments);
        return arguments;
    }

    static CrashPoints crashPoints(List<String> arguments) {
        String crash = "";
        String freeze = "";
        for (String argument : arguments) {
            if (argument.startsWith(CRASH_POINTS)) {
                crash = checked(CRASH_POINTS, argument.substring(CRASH_POINTS.length()));
            } else if (argument.startsWith(FREEZE_POINTS)) {
                freeze = checked(FREEZE_POINTS, argument.substring(FREEZE_POINTS.length()));
            } else {
                throw new IllegalArgumentException("unknown argument '" + argument + "'; expected " + CRASH_POINTS
                        + "SPEC or " + FREEZE_POINTS + "SPEC");
            }
        }
        return CrashPoints.of(crash, freeze);
    }

    private static String checked(String option, String spec) {
        try {
            CrashPoints.parse(spec);
            return spec;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + spec + ": " + e.getMessage(), e);
        }
    }
}
