package io.shardflow.cli;

import io.shardflow.stack.LocalStack;
import io.shardflow.stack.RecordedStack;
import io.shardflow.stack.Role;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "stack", description = "Run a local Kafka broker, Apicurio registry and S3 server as processes on 127.0.0.1.",
        subcommands = {StackCommand.Up.class, StackCommand.Down.class, StackCommand.Status.class})
final class StackCommand {

    static final String DEFAULT_DIR = "${env:SHARDFLOW_STACK_DIR:-${sys:shardflow.home:-.}/.stack}";

    @Command(name = "up", description = "Start the stack and leave it running (state in --stack-dir).")
    static final class Up implements Callable<Integer> {
        @Option(names = "--stack-dir", defaultValue = DEFAULT_DIR)
        Path dir;
        @Option(names = "--s3", defaultValue = "s3proxy", description = "s3proxy (light, default) or minio")
        String s3;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;

        @Override
        public Integer call() {
            if (LocalStack.read(dir).isPresent() && LocalStack.status(dir).values().stream().anyMatch(RecordedStack.ServerStatus::processAlive)) {
                throw new IllegalStateException("a stack is already running in " + dir + "; 'shardflow stack down' first");
            }
            LocalStack stack = LocalStack.start(StackConfig.defaults(dir).withS3Kind(S3Kind.parse(s3)).withDetached(true));
            PrintWriter out = command.commandLine().getOut();
            out.printf("stack up in %s%n", stack.workDir());
            out.printf("  kafka     %s%n  registry  %s%n  s3        %s (%s, bucket %s, key %s)%n", stack.bootstrapServers(),
                    stack.registryUrl(), stack.s3Endpoint(), stack.s3Kind().name().toLowerCase(java.util.Locale.ROOT),
                    stack.bucket(), stack.s3AccessKey());
            return 0;
        }
    }

    @Command(name = "down", description = "Stop the stack recorded in --stack-dir.")
    static final class Down extends OnRecordedStack {
        @Override
        public Integer call() {
            List<String> stopped = LocalStack.down(dir);
            command.commandLine().getOut().println(stopped.isEmpty() ? "nothing running in " + dir : "stopped: " + String.join(", ", stopped));
            return 0;
        }
    }

    @Command(name = "status", description = "Show whether each server of the stack is up.")
    static final class Status extends OnRecordedStack {
        @Override
        public Integer call() {
            Map<Role, RecordedStack.ServerStatus> status = LocalStack.status(dir);
            PrintWriter out = command.commandLine().getOut();
            if (status.isEmpty()) {
                out.println("no stack in " + dir);
                return 1;
            }
            boolean allUp = true;
            for (RecordedStack.ServerStatus s : status.values()) {
                out.printf("%-10s %-5s pid %-8d %s%n", s.role().name().toLowerCase(java.util.Locale.ROOT),
                        s.responding() ? "up" : "DOWN", s.pid(), s.endpoint());
                allUp &= s.responding();
            }
            return allUp ? 0 : 1;
        }
    }

    /** A command on the stack recorded in {@code --stack-dir}. */
    abstract static class OnRecordedStack implements Callable<Integer> {
        @Option(names = "--stack-dir", defaultValue = DEFAULT_DIR)
        Path dir;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;
    }
}
