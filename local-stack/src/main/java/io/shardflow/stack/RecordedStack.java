package io.shardflow.stack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stack known only from its {@code stack.json}, as seen by another process: probe it, or stop
 * it. A recorded pid is only signalled while its command line still names the stack's work dir,
 * so a pid reused by an unrelated process after a reboot is left alone.
 */
public final class RecordedStack {

    private static final Logger log = LoggerFactory.getLogger(RecordedStack.class);

    /** One server as probed now. {@code responding} is the readiness probe the stack starts with. */
    public record ServerStatus(Role role, long pid, boolean processAlive, boolean responding, String endpoint) {
        public boolean up() {
            return processAlive && responding;
        }
    }

    private RecordedStack() {
    }

    /** Probes every recorded server. */
    public static Map<Role, ServerStatus> status(StackState state) {
        Map<Role, ServerStatus> result = new EnumMap<>(Role.class);
        for (Map.Entry<Role, StackState.ServerState> entry : state.servers().entrySet()) {
            Role role = entry.getKey();
            long pid = entry.getValue().pid();
            boolean alive = isOurs(pid, state.workDir());
            result.put(role, new ServerStatus(role, pid, alive, alive && probe(role, state), endpoint(role, state)));
        }
        return result;
    }

    /** True when any recorded server process of this stack is still running. */
    public static boolean anyAlive(StackState state) {
        return state.servers().values().stream().anyMatch(s -> isOurs(s.pid(), state.workDir()));
    }

    /**
     * SIGTERM to every recorded server still running, all at once; SIGKILL to those still alive
     * after {@code grace}. Returns one line per server for the CLI to print.
     */
    public static List<String> down(StackState state, Duration grace) {
        List<String> report = new ArrayList<>();
        Map<Role, ProcessHandle> stopping = new EnumMap<>(Role.class);
        for (Map.Entry<Role, StackState.ServerState> entry : state.servers().entrySet()) {
            long pid = entry.getValue().pid();
            Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
            if (handle.isEmpty()) {
                report.add(entry.getKey().id() + ": not running (pid " + pid + ")");
            } else if (!isOurs(pid, state.workDir())) {
                log.warn("pid {} recorded for {} is now another process; leaving it alone", pid, entry.getKey());
                report.add(entry.getKey().id() + ": pid " + pid + " is no longer ours, left alone");
            } else {
                log.info("Stopping {} (pid {})", entry.getKey().id(), pid);
                handle.get().destroy();
                stopping.put(entry.getKey(), handle.get());
            }
        }
        for (Map.Entry<Role, ProcessHandle> entry : stopping.entrySet()) {
            report.add(entry.getKey().id() + ": " + awaitExit(entry.getValue(), grace));
        }
        return report;
    }

    private static String awaitExit(ProcessHandle handle, Duration grace) {
        try {
            handle.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
            return "stopped (pid " + handle.pid() + ")";
        } catch (TimeoutException e) {
            log.warn("pid {} still running {} s after SIGTERM; sending SIGKILL", handle.pid(), grace.toSeconds());
            handle.destroyForcibly();
            try {
                handle.onExit().get(10, TimeUnit.SECONDS);
                return "killed after " + grace.toSeconds() + " s (pid " + handle.pid() + ")";
            } catch (TimeoutException | ExecutionException e2) {
                return "still running after SIGKILL (pid " + handle.pid() + ")";
            } catch (InterruptedException e2) {
                Thread.currentThread().interrupt();
                return "interrupted (pid " + handle.pid() + ")";
            }
        } catch (ExecutionException e) {
            return "exit not observed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted (pid " + handle.pid() + ")";
        }
    }

    /**
     * Alive, and started for this work dir: one argument is our JVM marker or a path inside the
     * work dir (MinIO's data dir). A prefix test alone would let /tmp/a match /tmp/ab.
     */
    static boolean isOurs(long pid, String workDir) {
        if (pid <= 0 || ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
            return false;
        }
        String marker = "-Dshardflow.stack.dir=" + workDir;
        String inside = workDir.endsWith("/") ? workDir : workDir + "/";
        return commandLine(pid).stream().anyMatch(arg -> arg.equals(marker) || arg.startsWith(inside));
    }

    private static List<String> commandLine(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid), "cmdline");
        try {
            String raw = new String(Files.readAllBytes(proc), StandardCharsets.UTF_8);
            return Arrays.asList(raw.split("\0"));
        } catch (IOException e) {
            // not Linux, or the process just exited: fall back to what the JDK can tell
            return ProcessHandle.of(pid).flatMap(h -> h.info().arguments()).map(Arrays::asList).orElse(List.of());
        }
    }

    private static boolean probe(Role role, StackState state) {
        switch (role) {
            case BROKER:
                return KafkaBrokerProcess.probe(state);
            case REGISTRY:
                return ApicurioRegistryProcess.probe(state.registryUrl(), caFile(state));
            case S3:
                return state.s3Kind() == S3Kind.MINIO
                        ? MinioProcess.probe(state.s3Endpoint(), caFile(state))
                        : S3ProxyProcess.probe(state.s3Endpoint());
            case IDP:
                return state.issuer() != null && KeycloakProcess.probe(state.issuer(), caFile(state));
            default:
                throw new IllegalArgumentException("unknown role " + role);
        }
    }

    private static Path caFile(StackState state) {
        return state.caCertificate() == null ? null : Path.of(state.caCertificate());
    }

    private static String endpoint(Role role, StackState state) {
        switch (role) {
            case BROKER:
                return state.bootstrapServers();
            case REGISTRY:
                return state.registryUrl();
            case S3:
                return state.s3Endpoint();
            case IDP:
                return state.issuer();
            default:
                throw new IllegalArgumentException("unknown role " + role);
        }
    }
}
