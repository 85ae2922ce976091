package io.shardflow.cli;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.stack.LocalGateway;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.RecordedStack;
import io.shardflow.stack.Role;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import io.shardflow.stack.StackPrincipal;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "stack", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow stack up --s3 minio", "  bin/shardflow stack status --json", "  bin/shardflow stack down"},
        description = "Run a local Kafka broker, Apicurio registry and S3 server as processes on 127.0.0.1.",
        subcommands = {StackCommand.Up.class, StackCommand.Down.class, StackCommand.Status.class})
final class StackCommand {

    static final String DEFAULT_DIR = "${env:SHARDFLOW_STACK_DIR:-${sys:shardflow.home:-.}/.stack}";
    static final String STACK_DIR_HELP = "where the stack keeps its state (env SHARDFLOW_STACK_DIR, default: ${DEFAULT-VALUE})";

    @Command(name = "up", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "Start the stack and leave it running (state in --stack-dir).")
    static final class Up implements Callable<Integer> {
        @Option(names = "--stack-dir", defaultValue = DEFAULT_DIR, description = STACK_DIR_HELP)
        Path dir;
        @Option(names = "--s3", defaultValue = "s3proxy", description = "S3 server: s3proxy (light) or minio (default: ${DEFAULT-VALUE})")
        String s3;
        @Option(names = "--gateway", description = "also start the HTTP edge-gateway (detached, stopped by 'stack down'); "
                + "TLS with the stack's CA on a --secure stack. Issue device tokens with 'shardflow gateway token create'")
        boolean gateway;
        @Option(names = "--gateway-port", description = "the gateway's port on 127.0.0.1 (default: a free one)")
        Integer gatewayPort;
        @Option(names = "--secure", description = "Kafka with SASL_SSL (SCRAM-SHA-512) and mTLS listeners, a local CA, "
                + "one user per service and least-privilege ACLs; client files in <stack-dir>/secure/clients")
        boolean secure;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;

        @Override
        public Integer call() {
            if (LocalStack.read(dir).isPresent() && LocalStack.status(dir).values().stream().anyMatch(RecordedStack.ServerStatus::processAlive)) {
                throw new IllegalStateException("a stack is already running in " + dir + "; 'shardflow stack down' first");
            }
            LocalStack stack = LocalStack.start(StackConfig.defaults(dir).withS3Kind(S3Kind.parse(s3)).withDetached(true)
                    .withSecure(secure));
            PrintWriter out = command.commandLine().getOut();
            out.printf("stack up in %s%n", stack.workDir());
            out.printf("  kafka     %s%n  registry  %s%n  s3        %s (%s, bucket %s, key %s)%n", stack.bootstrapServers(),
                    stack.registryUrl(), stack.s3Endpoint(), stack.s3Kind().name().toLowerCase(java.util.Locale.ROOT),
                    stack.bucket(), stack.s3AccessKey());
            // The path, never the value: the secret stays in an owner-only file.
            out.printf("  s3 secret %s (owner-only; export SHARDFLOW_S3_SECRET_KEY_FILE=%s)%n", stack.s3SecretKeyFile(),
                    stack.s3SecretKeyFile());
            if (secure) {
                out.printf("  kafka     %s (SASL_SSL, SCRAM-SHA-512), %s (SSL with client certificates)%n", stack.bootstrapServers(),
                        stack.mtlsBootstrapServers().orElseThrow());
                out.printf("  clients   %s (one <principal>-scram.properties and -mtls.properties per principal; owner-only)%n",
                        stack.clientConfigDir().orElseThrow());
                out.printf("  CA        %s%n", stack.caCertificate().orElseThrow());
                out.printf("  publish as the edge principal: export %s=%s%n", KafkaClientConfig.ENV_NAME,
                        StackPrincipal.EDGE.scramClientConfig(stack.clientConfigDir().orElseThrow()));
            }
            if (gateway) {
                LocalGateway.Recorded started = LocalGateway.startDetached(stack.state(),
                        gatewayPort != null ? gatewayPort : LocalGateway.freePort(), java.time.Duration.ofSeconds(120));
                out.printf("  gateway   %s (pid %d, log %s)%n", started.url(), started.pid(), started.log());
                out.printf("            export SHARDFLOW_GATEWAY_URL=%s; a device token: shardflow gateway token create --device ID --dataset NAME%n",
                        started.url());
            }
            return 0;
        }
    }

    @Command(name = "down", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "Stop the stack recorded in --stack-dir.")
    static final class Down extends OnRecordedStack {
        @Override
        public Integer call() {
            List<String> stopped = LocalStack.down(dir);
            command.commandLine().getOut().println(stopped.isEmpty() ? "nothing running in " + dir : "stopped: " + String.join(", ", stopped));
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "Show whether each server of the stack is up; exits 1 if one is not.")
    static final class Status extends OnRecordedStack {
        @Option(names = "--json", description = "print {stackDir, up, servers: [{role, pid, endpoint, processAlive, responding}]}")
        boolean json;

        @Override
        public Integer call() {
            Map<Role, RecordedStack.ServerStatus> status = LocalStack.status(dir);
            PrintWriter out = command.commandLine().getOut();
            boolean up = !status.isEmpty() && status.values().stream().allMatch(RecordedStack.ServerStatus::responding);
            if (json) {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("stackDir", dir.toAbsolutePath().normalize().toString());
                view.put("up", up);
                view.put("servers", status.values());
                out.println(JsonOutput.write(view));
                return up ? 0 : Shardflow.PROBLEM;
            }
            if (status.isEmpty()) {
                out.println("no stack in " + dir);
                return Shardflow.PROBLEM;
            }
            boolean allUp = true;
            for (RecordedStack.ServerStatus s : status.values()) {
                out.printf("%-10s %-5s pid %-8d %s%n", s.role().name().toLowerCase(java.util.Locale.ROOT),
                        s.responding() ? "up" : "DOWN", s.pid(), s.endpoint());
                allUp &= s.responding();
            }
            var gateway = LocalGateway.recorded(dir);
            if (gateway.isPresent()) {
                boolean running = LocalGateway.isRunning(dir, gateway.get());
                out.printf("%-10s %-5s pid %-8d %s%n", "gateway", running ? "up" : "DOWN", gateway.get().pid(), gateway.get().url());
                allUp &= running;
            }
            return allUp ? 0 : 1;
        }
    }

    /** A command on the stack recorded in {@code --stack-dir}. */
    abstract static class OnRecordedStack implements Callable<Integer> {
        @Option(names = "--stack-dir", defaultValue = DEFAULT_DIR, description = STACK_DIR_HELP)
        Path dir;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;
    }
}
