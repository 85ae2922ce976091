package io.shardflow.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.ObjectStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * Runs {@code dataset} commands in-process with picocli and a fixed clock, on the store a test
 * chooses (or the real one the endpoint options open), and publishes the history they start from.
 */
final class DatasetCommandRunner {

    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-05-01T10:00:00Z"), ZoneOffset.UTC);
    private static final ObjectMapper JSON = new ObjectMapper();

    private DatasetCommandRunner() {
    }

    /** Output of one run. */
    record Run(int exitCode, String out, String err) {
        JsonNode json() throws Exception {
            return JSON.readTree(out);
        }
    }

    /** {@code cams/v1} with three snapshots: 12 shards, 46 samples. */
    static ShardPublisher publishThreeSnapshots(ObjectStore target, Path tmp) throws Exception {
        ShardPublisher p = new ShardPublisher(target, "cams", "v1", Files.createDirectories(tmp.resolve("scratch")), CLOCK);
        p.publish(0, 3, 5, 4, 6);
        p.publish(1, 7, 2, 3);
        p.publish(2, 4, 4, 5, 1, 2);
        return p;
    }

    static Run run(ObjectStore store, String... args) {
        return execute(endpoints -> store, args);
    }

    static Run withStandardInput(String typed, java.util.function.Supplier<Run> action) {
        java.io.InputStream original = System.in;
        System.setIn(new java.io.ByteArrayInputStream(typed.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        try {
            return action.get();
        } finally {
            System.setIn(original);
        }
    }

    /** Runs {@code dataset ARGS}; a null opener keeps the real one (S3 from the endpoint options). */
    static Run execute(Function<Endpoints, ObjectStore> opener, String... args) {
        return execute(new DatasetCommand(), opener, args);
    }

    /** Runs {@code ckpt ARGS} on {@code store}. */
    static Run ckpt(ObjectStore store, String... args) {
        return execute(new CkptCommand(), endpoints -> store, args);
    }

    private static Run execute(Object root, Function<Endpoints, ObjectStore> opener, String... args) {
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine cli = new CommandLine(root, new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                K made = defaults.create(type);
                if (made instanceof DatasetSubcommand command) {
                    if (opener != null) {
                        command.opener = opener;
                    }
                    command.clock = CLOCK;
                }
                return made;
            }
        });
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("shardflow: " + e.getMessage());
            return Shardflow.exitCodeOf(e);
        });
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
