package io.shardflow.stack;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code up [--s3 s3proxy|minio] [--dir DIR]}, {@code down [--dir DIR]}, {@code status [--dir DIR]}.
 * A plain main until the picocli CLI wraps it. {@code up} prints the endpoints as KEY=value lines
 * (so {@code eval "$(... up)"} works) and leaves the servers running after it exits.
 * Exit codes: 0 ok, 1 a server is down or failed to start, 2 usage error.
 */
public final class StackMain {

    /** The work dir when --dir is not given; ignored by git. */
    public static final Path DEFAULT_DIR = Path.of(".stack");
    public static final String ENV_DIR = "SHARDFLOW_STACK_DIR";

    private StackMain() {
    }

    public static void main(String[] args) {
        // exit explicitly: client libraries may leave non-daemon threads behind after `up`
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Deque<String> rest = new ArrayDeque<>(List.of(args));
        String command = rest.poll();
        if (command == null || command.equals("-h") || command.equals("--help")) {
            usage(command == null ? err : out);
            return command == null ? 2 : 0;
        }
        Path dir = defaultDir();
        S3Kind s3Kind = S3Kind.S3PROXY;
        boolean secure = false;
        try {
            while (!rest.isEmpty()) {
                String option = rest.poll();
                if (option.equals("--dir")) {
                    dir = Path.of(value(option, rest));
                } else if (option.equals("--secure") && command.equals("up")) {
                    secure = true;
                } else if (option.equals("--s3") && command.equals("up")) {
                    s3Kind = S3Kind.parse(value(option, rest));
                } else {
                    throw new IllegalArgumentException("unknown option '" + option + "' for " + command);
                }
            }
            switch (command) {
                case "up":
                    return up(StackConfig.defaults(dir).withS3Kind(s3Kind).withDetached(true).withSecure(secure), out);
                case "down":
                    return down(dir, out);
                case "status":
                    return status(dir, out);
                default:
                    throw new IllegalArgumentException("unknown command '" + command + "'");
            }
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            usage(err);
            return 2;
        } catch (StackException e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
    }

    private static Path defaultDir() {
        String fromEnv = System.getenv(ENV_DIR);
        return fromEnv == null || fromEnv.isBlank() ? DEFAULT_DIR : Path.of(fromEnv);
    }

    private static String value(String option, Deque<String> rest) {
        String value = rest.poll();
        if (value == null || value.startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    private static int up(StackConfig config, PrintStream out) {
        LocalStack stack = LocalStack.start(config);
        // not closed: a detached stack outlives this JVM until `down`
        printEndpoints(stack.state(), out);
        return 0;
    }

    static void printEndpoints(StackState state, PrintStream out) {
        out.println("SHARDFLOW_BOOTSTRAP_SERVERS=" + state.bootstrapServers());
        out.println("SHARDFLOW_REGISTRY_URL=" + state.registryUrl());
        out.println("SHARDFLOW_S3_ENDPOINT=" + state.s3Endpoint());
        out.println("SHARDFLOW_S3_ACCESS_KEY=" + state.s3AccessKey());
        out.println("SHARDFLOW_S3_SECRET_KEY_FILE=" + LocalStack.secretKeyFile(Path.of(state.workDir())));
        out.println("SHARDFLOW_S3_BUCKET=" + state.bucket());
        if (state.caCertificate() != null && state.s3Endpoint().startsWith("https:")) {
            out.println("SHARDFLOW_S3_CA_BUNDLE=" + state.caCertificate());
        }
        out.println("SHARDFLOW_S3_KIND=" + state.s3Kind().name().toLowerCase(java.util.Locale.ROOT));
        out.println("SHARDFLOW_STACK_DIR=" + state.workDir());
        if (state.secure()) {
            // the edge principal: what a shell publishing samples should be
            Path clients = Path.of(state.clientConfigDir());
            out.println("SHARDFLOW_KAFKA_CLIENT_CONFIG=" + StackPrincipal.EDGE.scramClientConfig(clients));
            // the edge principal's registry settings (OAuth2 client credentials, the CA), for the Python edge SDK
            out.println("SHARDFLOW_REGISTRY_CONFIG=" + IdentityClient.EDGE.registryConfig(clients));
            out.println("SHARDFLOW_REGISTRY_CA_BUNDLE=" + state.caCertificate());
            out.println("SHARDFLOW_OIDC_ISSUER=" + state.issuer());
        }
    }

    private static int down(Path dir, PrintStream out) {
        Optional<StackState> state = LocalStack.read(dir);
        if (state.isEmpty()) {
            out.println("no stack recorded in " + dir.toAbsolutePath().normalize());
            return 0;
        }
        LocalStack.down(dir).forEach(out::println);
        return 0;
    }

    private static int status(Path dir, PrintStream out) {
        Optional<StackState> state = LocalStack.read(dir);
        if (state.isEmpty()) {
            out.println("no stack recorded in " + dir.toAbsolutePath().normalize());
            return 1;
        }
        Map<Role, RecordedStack.ServerStatus> status = RecordedStack.status(state.get());
        List<Role> roles = state.get().roles();
        boolean allUp = status.keySet().containsAll(roles);
        for (RecordedStack.ServerStatus server : status.values()) {
            out.printf("%-8s %-4s pid %-7d %s%n", server.role().id(), server.up() ? "up" : "down", server.pid(),
                    server.endpoint());
            allUp &= server.up();
        }
        for (Role role : roles) {
            if (!status.containsKey(role)) {
                out.printf("%-8s %-4s (not recorded)%n", role.id(), "down");
            }
        }
        return allUp ? 0 : 1;
    }

    private static void usage(PrintStream out) {
        out.println("usage: stack up [--s3 s3proxy|minio] [--secure] [--dir DIR]   start a detached local stack");
        out.println("       stack status [--dir DIR]                   probe each server");
        out.println("       stack down [--dir DIR]                     stop it");
        out.println("DIR defaults to $" + ENV_DIR + " or ./.stack");
    }
}
